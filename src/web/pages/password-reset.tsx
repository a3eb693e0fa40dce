import { type Context } from "hono";
import { reasonOf } from "../../domain/errors";
import { clientAddress } from "../../http/client-address";
import { logUnexpectedError } from "../../observability/error-log";
import { issuerOf } from "../../http/issuer";
import { RESET_FAILURES, requestPasswordReset, resetPassword, userOfResetToken } from "../../services/accounts/password-reset";
import { confirmEmail } from "../../services/accounts/email-confirmation";
import { CsrfField, Flash, renderPage, setFlash, takeFlash, type PageEnv } from "../page";
import { csrfToken } from "../session";
import { pageApp } from "../door";

/**
 * GitLab's (Devise's) mailed account links: "Forgot your password?" (/users/password/new, the
 * link to /users/password/edit) and the confirmation of a changed e-mail address
 * (/users/confirmation). The rules are src/services/accounts/password-reset.ts and
 * email-confirmation.ts; these pages only parse and render.
 */
const passwordReset = pageApp({ enter: "anyone" });
type Ctx = Context<PageEnv>;

/** Devise's paranoid answer: the same whether or not the address belongs to anyone. */
const SENT = "If your email address exists in our database, you will receive a password recovery link at your email address in a few minutes.";
const INVALID_LINK = "Reset password token is invalid or has expired. Request a new link.";
const ERRORS = { mismatch: "Password confirmation doesn't match Password." } as const;

async function requestForm(c: Ctx) {
  return renderPage(
    c,
    "Forgot your password?",
    <div class="narrow">
      <h1>Forgot your password?</h1>
      <Flash kind="error" message={takeFlash(c)} />
      <p>Enter the email address of your account and we will send you a link to choose a new password.</p>
      <form method="post" action="/users/password" class="card">
        <CsrfField token={await csrfToken(c)} />
        <label for="user_email">Email</label>
        <input type="email" id="user_email" name="email" autocomplete="email" required maxlength={254} autofocus />
        <p>
          <button type="submit">Reset password</button>
        </p>
      </form>
      <p>
        <a href="/users/sign_in">Back to sign in</a>
      </p>
    </div>,
  );
}

async function newPasswordForm(c: Ctx, token: string, error?: string | null, status: 200 | 422 = 200) {
  return renderPage(
    c,
    "Change your password",
    <div class="narrow">
      <h1>Change your password</h1>
      <Flash kind="error" message={error} />
      <p>Every browser signed in to your account is signed out once the new password is saved.</p>
      <form method="post" action="/users/password" class="card">
        <CsrfField token={await csrfToken(c)} />
        <input type="hidden" name="reset_password_token" value={token} />
        <label for="user_password">New password</label>
        <input type="password" id="user_password" name="password" autocomplete="new-password" required minlength={8} maxlength={128} autofocus />
        <label for="user_password_confirmation">Confirm new password</label>
        <input type="password" id="user_password_confirmation" name="password_confirmation" autocomplete="new-password" required />
        <p>
          <button type="submit">Change your password</button>
        </p>
      </form>
    </div>,
    status,
  );
}

passwordReset.get("/users/password/new", (c) => requestForm(c));

passwordReset.get("/users/password/edit", async (c) => {
  const token = c.req.query("reset_password_token") ?? "";
  if (!(await userOfResetToken(c.env, token))) {
    setFlash(c, INVALID_LINK);
    return c.redirect("/users/password/new", 303);
  }
  return newPasswordForm(c, token);
});

/** One path for both steps, as Devise's: with a token it sets the password, without it mails a link. */
passwordReset.post("/users/password", async (c) => {
  const body = await c.req.parseBody();
  const field = (name: string) => (typeof body[name] === "string" ? (body[name] as string) : "");
  const ip = clientAddress(c.req.raw, c.env);
  const token = field("reset_password_token");
  if (!token) {
    // Links in mail name the address people use (ISSUER), else this request's origin.
    const { afterwards } = await requestPasswordReset(c.env, issuerOf(c), field("email").slice(0, 254), ip);
    // After the answer, for a known address and an unknown one alike; a failure there is logged,
    // never shown (the answer has gone, and must not differ).
    c.executionCtx.waitUntil(afterwards.catch((err: unknown) => logUnexpectedError("pages", err, c)));
    setFlash(c, SENT);
    return c.redirect("/users/sign_in", 303);
  }
  try {
    await resetPassword(c.env, { token, password: field("password"), confirmation: field("password_confirmation") }, ip);
  } catch (e) {
    const reason = reasonOf(e, RESET_FAILURES);
    if (!reason) throw e;
    if (reason === "invalid_token") {
      setFlash(c, INVALID_LINK);
      return c.redirect("/users/password/new", 303);
    }
    return newPasswordForm(c, token, reason === "weak" ? (e as Error).message : ERRORS[reason], 422);
  }
  setFlash(c, "Your password has been changed successfully. Sign in with your new password.");
  return c.redirect("/users/sign_in", 303);
});

passwordReset.get("/users/confirmation", async (c) => {
  const user = await confirmEmail(c.env, c.req.query("confirmation_token"), clientAddress(c.req.raw, c.env));
  setFlash(c, user ? "Your email address has been successfully confirmed." : "Confirmation token is invalid or has expired. Ask for the change again.");
  return c.redirect("/users/sign_in", 303);
});

export default passwordReset;
