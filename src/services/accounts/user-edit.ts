import { hashPassword } from "../../crypto/password";
import { recordAudit, type AuditActor } from "../../db/audit";
import { getDb } from "../../db/client";
import { claimNamespacePath } from "../../db/namespace-paths";
import { passwordHashUpdate, personalProjectsHaveRegistryRepositories, updateUserAttributes, type UserAttributeChanges } from "../../db/user-accounts";
import { findUserById, takenFields, type UserRow } from "../../db/users";
import type { Bindings } from "../../env";
import { userChanged } from "./user-changed";
import { AppError } from "../../domain/errors";
import { namespacePathError } from "../../domain/namespace-paths";
import { requestEmailChange } from "./email-confirmation";
import { assertStrongPassword, replacePassword } from "./password-change";

/** What an administrator may change (GitLab's PUT /users/:id, the attributes kept here). */
export interface UserEdit {
  name?: string;
  username?: string;
  email?: string;
  /** GitLab's skip_reconfirmation: the new email takes effect at once instead of after confirmation. */
  skipReconfirmation?: boolean;
  password?: string;
  admin?: boolean;
}

/**
 * An administrator edits a user (GitLab's Users::UpdateService as the admin API calls it):
 * - a password set for another user expires at once (GitLab's password_expires_at), so the user
 *   must choose their own at the next sign-in; every session and OAuth grant of the user ends;
 * - a new email waits for confirmation by mail (unconfirmed_email) unless skip_reconfirmation;
 * - a new username renames the personal namespace (refused, as GitLab, while a personal project
 *   holds container images, whose names carry the path).
 * One audit row, user_updated, naming the changed fields (never a value of the password).
 */
export async function updateUser(env: Bindings, origin: string, actor: AuditActor, userId: number, edit: UserEdit): Promise<UserRow> {
  const db = getDb(env.DB);
  const user = await findUserById(db, userId);
  if (!user) throw new AppError("not_found", "User Not Found");
  if (edit.password !== undefined) assertStrongPassword(edit.password);
  const changes: UserAttributeChanges = {};
  if (edit.name !== undefined && edit.name !== user.name) changes.name = edit.name;
  if (edit.admin !== undefined && edit.admin !== user.isAdmin) changes.isAdmin = edit.admin;
  if (edit.username !== undefined && edit.username !== user.username) {
    if (edit.username.toLowerCase() !== user.username.toLowerCase() && (await takenFields(db, edit.username, "")).username) throw namespacePathError("username", "taken", edit.username);
    if (await personalProjectsHaveRegistryRepositories(db, user.id)) {
      throw new AppError("invalid", "Username change failed - Namespace cannot be moved because at least one project has tags in container registry", { reason: "registry_tags" });
    }
    changes.username = edit.username;
  }
  const newEmail = edit.email !== undefined && edit.email.toLowerCase() !== user.email.toLowerCase() ? edit.email : null;
  if (newEmail && (await takenFields(db, "", newEmail)).email) throw namespacePathError("email", "taken", newEmail);
  if (newEmail && edit.skipReconfirmation) changes.email = newEmail;

  let updated = user;
  if (Object.keys(changes).length) {
    updated = await claimNamespacePath({ field: "username", value: changes.username ?? user.username, topLevel: changes.username !== undefined }, () =>
      updateUserAttributes(db, user, changes),
    );
  }
  const fields: string[] = Object.keys(changes).map((k) => (k === "isAdmin" ? "admin" : k));
  if (edit.password !== undefined) fields.push("password");
  const audit = { action: "user_updated" as const, actor, entityType: "user", entityId: user.id, details: { fields, ...(changes.username ? { from: user.username, to: changes.username } : {}) } };
  if (edit.password !== undefined) {
    // Administrators changing their own password choose it: it does not expire (GitLab).
    const expiresAt = actor.id === user.id ? null : Date.now();
    // The new hash, the intent to end the user's credentials and the audit row in one batch.
    await replacePassword(env, { userId: user.id, actor, reason: "password_set_by_admin", guard: passwordHashUpdate(db, user.id, await hashPassword(edit.password), expiresAt), audit });
  } else if (fields.length) {
    await recordAudit(db, audit);
  }
  if (newEmail && !edit.skipReconfirmation) await requestEmailChange(env, origin, actor, updated, newEmail);
  if (edit.password === undefined && fields.length) await userChanged(env, user.id);
  return (await findUserById(db, user.id))!;
}
