import type { AuditActor } from "../../db/audit";
import type { Bindings } from "../../env";
import { unlockAccount } from "./lockout";
import { activateUser, blockUser, deactivateUser, unblockUser, type StateChange } from "./user-state";

/**
 * The administrator's account actions, by GitLab's names: the admin API
 * (`POST /api/v4/users/:id/<action>`) and the admin pages (`/admin/users/:username`) both call
 * these, so each action changes state and writes its audit row one way.
 */
export type ModerationAction = (env: Bindings, actor: AuditActor, userId: number) => Promise<StateChange>;

// unlock: lifts the sign-in lockout (docs/security.md); GitLab has it on its admin page only.
export const MODERATION_ACTIONS = {
  block: blockUser,
  unblock: unblockUser,
  deactivate: deactivateUser,
  activate: activateUser,
  unlock: unlockAccount,
} satisfies Record<string, ModerationAction>;

export type ModerationActionName = keyof typeof MODERATION_ACTIONS;
