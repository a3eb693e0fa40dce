import { type Context } from "hono";
import { PASSWORD_CHANGE_FAILURES, changePassword, type PasswordChangeFailure } from "../../services/accounts/password-change";
import { reasonOf } from "../../domain/errors";
import { throttledPageError } from "../throttled";
import { ThrottledError } from "../../throttle";
import { CsrfField, Flash, renderPage, setFlash, takeFlash, type PageEnv } from "../page";
import { csrfToken, endOtherSessions } from "../session";
import { clientAddress } from "../../http/client-address";
import { safeRedirectPath } from "../redirect";
import { pageApp } from "../door";

/** /profile/password/edit: change the password (GitLab's path); every other session ends. */
const password = pageApp({ enter: "signed-in" });

const ERRORS: Record<PasswordChangeFailure, string> = {
  wrong_password: "You must provide a valid current password.",
  mismatch: "Password confirmation doesn't match Password.",
  weak: "",
  unchanged: "The new password must differ from the current one.",
};

async function form(c: Context<PageEnv>, error?: string | null, status: 200 | 422 | 429 = 200) {
  return renderPage(
    c,
    "Password",
    <div class="narrow">
      <h1>Password</h1>
      <Flash kind="notice" message={takeFlash(c)} />
      <Flash kind="error" message={error} />
      <p>After a successful password update, every other browser signed in to your account is signed out.</p>
      <form method="post" action="/profile/password" class="card">
        <CsrfField token={await csrfToken(c)} />
        <label for="user_current_password">Current password</label>
        <input type="password" id="user_current_password" name="current_password" autocomplete="current-password" required />
        <label for="user_password">New password</label>
        <input type="password" id="user_password" name="password" autocomplete="new-password" required minlength={8} maxlength={128} />
        <label for="user_password_confirmation">Password confirmation</label>
        <input type="password" id="user_password_confirmation" name="password_confirmation" autocomplete="new-password" required />
        <p>
          <button type="submit">Save password</button>
        </p>
      </form>
    </div>,
    status,
  );
}

password.get("/profile/password/edit", (c) => form(c));

/**
 * GitLab's "Set up new password" (/profile/password/new): where a user whose password an
 * administrator set lands after signing in, and every page sends them until they choose their own.
 */
async function expiredForm(c: Context<PageEnv>, redirectTo: string, error?: string | null, status: 200 | 422 | 429 = 200) {
  return renderPage(
    c,
    "Set up new password",
    <div class="narrow">
      <h1>Set up new password</h1>
      <Flash kind="error" message={error} />
      <p>Your password was set by an administrator and has expired. Please choose a new password to continue.</p>
      <form method="post" action="/profile/password/new" class="card">
        <CsrfField token={await csrfToken(c)} />
        <input type="hidden" name="redirect_to" value={redirectTo} />
        <label for="user_current_password">Current password</label>
        <p class="hint" id="current_hint">The password the administrator gave you.</p>
        <input type="password" id="user_current_password" name="current_password" autocomplete="current-password" required aria-describedby="current_hint" />
        <label for="user_password">New password</label>
        <input type="password" id="user_password" name="password" autocomplete="new-password" required minlength={8} maxlength={128} />
        <label for="user_password_confirmation">Password confirmation</label>
        <input type="password" id="user_password_confirmation" name="password_confirmation" autocomplete="new-password" required />
        <p>
          <button type="submit">Set new password</button>
        </p>
      </form>
    </div>,
    status,
  );
}

password.get("/profile/password/new", (c) => expiredForm(c, safeRedirectPath(c.req.query("redirect_to"))));

password.post("/profile/password/new", async (c) => {
  const body = await c.req.parseBody();
  const field = (name: string) => (typeof body[name] === "string" ? (body[name] as string) : "");
  const redirectTo = safeRedirectPath(field("redirect_to") || null);
  try {
    await changePassword(c.env, c.var.user, { current: field("current_password"), password: field("password"), confirmation: field("password_confirmation") }, clientAddress(c.req.raw, c.env));
  } catch (e) {
    if (e instanceof ThrottledError) return expiredForm(c, redirectTo, throttledPageError(c, e), 429);
    const reason = reasonOf(e, PASSWORD_CHANGE_FAILURES);
    if (!reason) throw e;
    return expiredForm(c, redirectTo, ERRORS[reason] || (e as Error).message, 422);
  }
  await endOtherSessions(c, c.var.user.id);
  setFlash(c, "Password successfully changed.");
  return c.redirect(redirectTo, 303);
});

password.post("/profile/password", async (c) => {
  const body = await c.req.parseBody();
  const field = (name: string) => (typeof body[name] === "string" ? (body[name] as string) : "");
  try {
    await changePassword(c.env, c.var.user, { current: field("current_password"), password: field("password"), confirmation: field("password_confirmation") }, clientAddress(c.req.raw, c.env));
  } catch (e) {
    if (e instanceof ThrottledError) return form(c, throttledPageError(c, e), 429);
    const reason = reasonOf(e, PASSWORD_CHANGE_FAILURES);
    if (!reason) throw e;
    // "weak" shows GitLab's sentence about the new password, which is the error's message.
    return form(c, ERRORS[reason] || (e as Error).message, 422);
  }
  const ended = await endOtherSessions(c, c.var.user.id);
  setFlash(c, `Password was successfully updated.${ended ? ` ${ended} other session${ended === 1 ? " was" : "s were"} signed out.` : ""}`);
  return c.redirect("/profile/password/edit", 303);
});

export default password;
