import { type Context } from "hono";
import { MODERATION_ACTIONS } from "../../../services/accounts/moderation";
import { deleteUser } from "../../../services/accounts/user-delete";
import type { UserState } from "../../../services/accounts/user-state";
import { AppError } from "../../../domain/errors";
import { whenParamIs } from "../../../http/router";
import { getDb } from "../../../db/client";
import { findUserByLogin, type UserRow } from "../../../db/users";
import { CsrfField, Flash, formatDate, sessionActor, renderPage, setFlash, takeFlash, type PageEnv } from "../../page";
import { csrfToken } from "../../session";
import { notFoundPage } from "../not-found";
import { StateBadge } from "./users";
import { DisableTwoFactorForm } from "./user-two-factor";
import { pageApp } from "../../door";

/**
 * /admin/users/:username: one account and the actions its state allows (GitLab's admin user page).
 * Each action is a confirmed POST with the CSRF token that calls the same function as the admin
 * API (src/services/accounts/moderation.ts), so the state change and its audit row are the API's.
 */
const adminUser = pageApp({ enter: "administrator" });
type Ctx = Context<PageEnv>;

type PageAction = "block" | "unblock" | "deactivate" | "activate";

/** What each button says, asks and reports. */
const ACTIONS: Record<PageAction, { label: string; confirm: (u: string) => string; done: (u: string) => string; danger: boolean }> = {
  block: {
    label: "Block",
    confirm: (u) => `Block @${u}? They are signed out everywhere, their OAuth grants are revoked and they cannot sign in until unblocked.`,
    done: (u) => `@${u} was blocked.`,
    danger: true,
  },
  unblock: { label: "Unblock", confirm: (u) => `Unblock @${u}? They can sign in again.`, done: (u) => `@${u} was unblocked.`, danger: false },
  deactivate: {
    label: "Deactivate",
    confirm: (u) => `Deactivate @${u}? They are signed out and their tokens stop working until they sign in again.`,
    done: (u) => `@${u} was deactivated.`,
    danger: true,
  },
  activate: { label: "Activate", confirm: (u) => `Activate @${u}?`, done: (u) => `@${u} was activated.`, danger: false },
};

/** Which actions a state offers, as GitLab's admin page does. */
const OFFERED: Record<UserState, PageAction[]> = {
  active: ["block", "deactivate"],
  blocked: ["unblock"],
  deactivated: ["activate", "block"],
};

async function target(c: Ctx): Promise<UserRow | null> {
  return findUserByLogin(getDb(c.env.DB), c.req.param("username") ?? "");
}

adminUser.get("/admin/users/:username", async (c) => {
  const user = await target(c);
  if (!user) return notFoundPage(c);
  const token = await csrfToken(c);
  const self = user.id === c.var.user.id;
  const base = `/admin/users/${encodeURIComponent(user.username)}`;
  return renderPage(
    c,
    `${user.username} · Admin area`,
    <>
      <h1>
        <bdi>{user.name}</bdi> <span class="muted">@{user.username}</span>
      </h1>
      <Flash kind="notice" message={takeFlash(c)} />
      <dl class="card">
        <dt>State</dt>
        <dd id="user-state">
          <StateBadge user={user} />
        </dd>
        <dt>Email</dt>
        <dd class="id">{user.email}</dd>
        <dt>Two-factor authentication</dt>
        <dd id="user-two-factor">
          {user.otpRequired ? "Enabled" : "Disabled"}
          {user.otpRequired ? <DisableTwoFactorForm user={user} token={token} /> : null}
        </dd>
        <dt>Created</dt>
        <dd>{formatDate(user.createdAt)}</dd>
        <dt>Last sign-in</dt>
        <dd>{formatDate(user.lastSignInAt)}</dd>
      </dl>
      <h2>Account</h2>
      {self ? <p class="muted">You cannot block or deactivate your own account here.</p> : null}
      <div class="actions">
        {self
          ? null
          : OFFERED[user.state as UserState].map((a) => (
              <form method="post" action={`${base}/${a}`} data-confirm={ACTIONS[a].confirm(user.username)}>
                <CsrfField token={token} />
                <button type="submit" class={ACTIONS[a].danger ? "danger" : "secondary"}>
                  {ACTIONS[a].label}
                </button>
              </form>
            ))}
        <form method="post" action={`${base}/unlock`} data-confirm={`Lift every sign-in lockout of @${user.username}?`}>
          <CsrfField token={token} />
          <button type="submit" class="secondary">
            Unlock
          </button>
        </form>
        <a href={`${base}/lockout`}>Sign-in lockout</a>
        <a href={`${base}/edit`}>Edit</a>
      </div>
      {self ? null : <DeleteUserForms base={base} username={user.username} token={token} />}
      <p>
        <a href="/admin/users">Back to users</a>
      </p>
    </>,
  );
});

/** GitLab's two delete buttons: the user alone (contributions go to the Ghost User), or with their contributions. */
function DeleteUserForms(p: { base: string; username: string; token: string }) {
  return (
    <>
      <h2>Delete user</h2>
      <p class="muted">
        Signs them out everywhere, revokes every token and OAuth grant, and deletes their personal projects. Their merge requests, issues and
        pipelines move to the Ghost User, unless you delete them too.
      </p>
      <div class="actions">
        <form method="post" action={`${p.base}/delete`} data-confirm={`Delete @${p.username}? Their contributions move to the Ghost User. This cannot be undone.`}>
          <CsrfField token={p.token} />
          <button type="submit" class="danger">
            Delete user
          </button>
        </form>
        <form method="post" action={`${p.base}/delete`} data-confirm={`Delete @${p.username} and their merge requests, issues and pipelines? This cannot be undone.`}>
          <CsrfField token={p.token} />
          <input type="hidden" name="hard_delete" value="true" />
          <button type="submit" class="danger">
            Delete user and contributions
          </button>
        </form>
      </div>
    </>
  );
}

adminUser.post("/admin/users/:username/:action", async (c, next) => {
  // The page's own actions; "unlock" passes on to the lockout page's route (src/web/pages/admin/lockout.tsx).
  if (!Object.hasOwn(ACTIONS, c.req.param("action"))) return next();
  const user = await target(c);
  if (!user) return notFoundPage(c);
  const action = c.req.param("action") as PageAction;
  try {
    const changed = await MODERATION_ACTIONS[action](c.env, sessionActor(c), user.id);
    setFlash(c, changed ? ACTIONS[action].done(user.username) : `Nothing to do: @${user.username} is ${user.state}.`);
  } catch (e) {
    // The account rules' refusals (own account, deactivating a recently active user, …) are shown as they are.
    if (!(e instanceof AppError && e.code === "forbidden")) throw e;
    setFlash(c, e.message);
  }
  return c.redirect(`/admin/users/${encodeURIComponent(user.username)}`, 303);
});

// The same service as DELETE /api/v4/users/:id (src/services/accounts/user-delete.ts): its refusals are shown as they are.
// "delete" sits under the pattern of the moderation actions (RegExpRouter, src/http/router.ts).
adminUser.post("/admin/users/:username/:action", whenParamIs<PageEnv>("action", "delete", async (c) => {
  const user = await target(c);
  if (!user) return notFoundPage(c);
  const hardDelete = (await c.req.parseBody()).hard_delete === "true";
  try {
    await deleteUser(c.env, sessionActor(c), user.id, { hardDelete });
  } catch (e) {
    if (!(e instanceof AppError && e.code === "forbidden")) throw e;
    setFlash(c, e.message);
    return c.redirect(`/admin/users/${encodeURIComponent(user.username)}`, 303);
  }
  setFlash(c, hardDelete ? `@${user.username} and their contributions were deleted.` : `@${user.username} was deleted; their contributions now belong to the Ghost User.`);
  return c.redirect("/admin/users", 303);
}));

export default adminUser;
