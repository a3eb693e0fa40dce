import { whenParamIs } from "../../../http/router";
import { HTTPException } from "hono/http-exception";
import { accountLocks } from "../../../services/accounts/lockout";
import { MODERATION_ACTIONS } from "../../../services/accounts/moderation";
import { AppError } from "../../../domain/errors";
import { getDb } from "../../../db/client";
import { findUserByLogin } from "../../../db/users";
import { CsrfField, Flash, formatDate, sessionActor, renderPage, setFlash, takeFlash, type PageEnv } from "../../page";
import { csrfToken } from "../../session";
import { pageApp } from "../../door";

/**
 * /admin/users/:username/lockout (administrators): which client addresses are locked out of the
 * account and until when, with the Unlock button (GitLab's admin user page has the same action).
 * The unlock is audited (`account_unlocked`). Mounted behind the admin guard (./index.tsx).
 */
const adminLockout = pageApp({ enter: "administrator" });

async function target(c: { env: PageEnv["Bindings"]; req: { param(name: "username"): string } }) {
  const user = await findUserByLogin(getDb(c.env.DB), c.req.param("username"));
  if (!user) throw new HTTPException(404, { message: "User not found." });
  return user;
}

adminLockout.get("/admin/users/:username/lockout", async (c) => {
  const user = await target(c);
  const locks = await accountLocks(c.env, user.id);
  return renderPage(
    c,
    `Sign-in lockout of ${user.username}`,
    <>
      <h1>Sign-in lockout of @{user.username}</h1>
      <Flash kind="notice" message={takeFlash(c)} />
      <p>
        Ten wrong passwords or two-factor codes from one network address lock that address out of the account for a while. Other
        addresses, and so the account's owner elsewhere, are not affected.
      </p>
      {locks.length === 0 ? (
        <p id="lockout-state">No address is locked out of this account.</p>
      ) : (
        <table id="lockout-state">
          <thead>
            <tr>
              <th scope="col">Address</th>
              <th scope="col">Locked until</th>
            </tr>
          </thead>
          <tbody>
            {locks.map((l) => (
              <tr>
                <td>{l.address}</td>
                <td>{formatDate(l.until)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <form method="post" action={`/admin/users/${encodeURIComponent(user.username)}/unlock`} class="card">
        <CsrfField token={await csrfToken(c)} />
        <button type="submit">Unlock</button>
      </form>
    </>,
  );
});

// "unlock" sits under the pattern of the moderation actions (RegExpRouter, src/http/router.ts).
adminLockout.post("/admin/users/:username/:action", whenParamIs<PageEnv>("action", "unlock", async (c) => {
  const user = await target(c);
  const lifted = (await accountLocks(c.env, user.id)).length;
  try {
    // Through the moderation table, so its rules (not on one's own account) hold here too.
    await MODERATION_ACTIONS.unlock(c.env, sessionActor(c), user.id);
  } catch (e) {
    if (!(e instanceof AppError && e.code === "forbidden")) throw e;
    setFlash(c, e.message);
    return c.redirect(`/admin/users/${encodeURIComponent(user.username)}/lockout`, 303);
  }
  setFlash(c, lifted === 0 ? `@${user.username} had no locked address; counters were reset.` : `Unlocked @${user.username} (${lifted} address${lifted === 1 ? "" : "es"}).`);
  return c.redirect(`/admin/users/${encodeURIComponent(user.username)}/lockout`, 303);
}));

export default adminLockout;
