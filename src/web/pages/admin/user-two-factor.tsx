import { AppError } from "../../../domain/errors";
import { getDb } from "../../../db/client";
import { findUserByLogin, type UserRow } from "../../../db/users";
import { whenParamIs } from "../../../http/router";
import { disableTwoFactorOfUser } from "../../../services/accounts/admin-two-factor";
import { CsrfField, sessionActor, setFlash, type PageEnv } from "../../page";
import { notFoundPage } from "../not-found";
import { pageApp } from "../../door";

/**
 * "Disable two-factor authentication" on the admin user page (GitLab's admin area), for a person who
 * lost both their authenticator and their recovery codes. It calls the service the API's
 * `PATCH /users/:id/disable_two_factor` calls; unlike the API, the admin area may do it for an
 * administrator too, as GitLab's does.
 */
const adminUserTwoFactor = pageApp({ enter: "administrator" });

export function DisableTwoFactorForm(props: { user: UserRow; token: string }) {
  const u = props.user.username;
  return (
    <form
      method="post"
      action={`/admin/users/${encodeURIComponent(u)}/disable_two_factor`}
      data-confirm={`Disable two-factor authentication for @${u}? They can then sign in with their password alone, and set it up again.`}
    >
      <CsrfField token={props.token} />
      <button type="submit" class="danger">
        Disable two-factor authentication
      </button>
    </form>
  );
}

// One pattern with the page's other actions (RegExpRouter: no literal beside a parameter, src/http/router.ts).
adminUserTwoFactor.post("/admin/users/:username/:action", whenParamIs<PageEnv>("action", "disable_two_factor", async (c) => {
  const user = await findUserByLogin(getDb(c.env.DB), c.req.param("username") ?? "");
  if (!user) return notFoundPage(c);
  try {
    await disableTwoFactorOfUser(c.env, sessionActor(c), user.id, "admin_page");
    setFlash(c, `Two-factor authentication has been disabled for @${user.username}.`);
  } catch (e) {
    if (!(e instanceof AppError && e.code === "invalid")) throw e;
    setFlash(c, `Two-factor authentication is not enabled for @${user.username}.`);
  }
  return c.redirect(`/admin/users/${encodeURIComponent(user.username)}`, 303);
}));

export default adminUserTwoFactor;
