import type { AuditActor } from "../../db/audit";
import type { Bindings } from "../../env";
import { unlockAccount } from "./lockout";
import { accountStateError, activateUser, blockUser, deactivateUser, unblockUser, type StateChange } from "./user-state";

/**
 * The administrator's account actions, by GitLab's names: the admin API
 * (`POST /api/v4/users/:id/<action>`) and the admin pages (`/admin/users/:username`) both call
 * these, so each action changes state and writes its audit row one way.
 */
export type ModerationAction = (env: Bindings, actor: AuditActor, userId: number) => Promise<StateChange>;

/**
 * The rule GitLab applies to block, for every account action: the initiating administrator (under
 * Sudo, the administrator whose token acts, not only the user acted as) never acts on their own
 * account, so no administrator blocks, deactivates or otherwise moderates themselves out of the
 * service by mistake, and another administrator is the one who reverses a state.
 */
function notOnOneself(action: ModerationAction, pastTense: string): ModerationAction {
  return (env, actor, userId) => {
    if (userId === actor.id || userId === actor.impersonatorId) {
      return Promise.reject(accountStateError("forbidden", `The API initiating user cannot be ${pastTense} by the API`));
    }
    return action(env, actor, userId);
  };
}

// unlock: lifts the sign-in lockout (docs/security.md); GitLab has it on its admin page only.
export const MODERATION_ACTIONS = {
  block: notOnOneself(blockUser, "blocked"),
  unblock: notOnOneself(unblockUser, "unblocked"),
  deactivate: notOnOneself(deactivateUser, "deactivated"),
  activate: notOnOneself(activateUser, "activated"),
  unlock: notOnOneself(unlockAccount, "unlocked"),
} satisfies Record<string, ModerationAction>;

export type ModerationActionName = keyof typeof MODERATION_ACTIONS;
