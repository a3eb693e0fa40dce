import { Hono, type Context } from "hono";
import { PASSWORD_CHANGE_FAILURES, changePassword, type PasswordChangeFailure } from "../../services/accounts/password-change";
import { reasonOf } from "../../domain/errors";
import { throttledPageError } from "../throttled";
import { ThrottledError } from "../../throttle";
import { CsrfField, Flash, renderPage, requireUser, setFlash, takeFlash, type PageEnv } from "../page";
import { csrfToken, endOtherSessions } from "../session";
import { clientAddress } from "../../http/client-address";

/** /profile/password/edit: change the password (GitLab's path); every other session ends. */
const password = new Hono<PageEnv>();
password.use("/profile/password", requireUser);
password.use("/profile/password/*", requireUser);

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
