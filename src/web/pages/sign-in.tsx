import { guardRefuses } from "../../services/accounts/account-guard";
import { assertAttemptAllowed, isLockedOut, recordFailedAttempt } from "../../services/accounts/lockout";
import { LOGIN_FAILURES, recordSuccessfulSignIn, verifyPasswordLogin } from "../../services/accounts/password-login";
import { reasonOf } from "../../domain/errors";
import { verifySecondFactor } from "../../services/accounts/two-factor";
import { CsrfField, Flash, renderPage, takeFlash, type PageEnv } from "../page";
import { ThrottledError, rateLimitHeaders } from "../../throttle";
import { safeRedirectPath } from "../redirect";
import { csrfToken, currentUser, endSession, pendingTwoFactorUser, signOutBrowser, startSession } from "../session";
import { clientAddress } from "../../http/client-address";
import { passwordExpired } from "../../services/accounts/password-expiry";
import type { UserRow } from "../../db/users";
import { pageApp } from "../door";

/** Sign-in (password, then two-factor when enabled) and sign-out. */
const signIn = pageApp({ enter: "anyone" });

/** One message for unknown users, wrong passwords and locked-out addresses (no username enumeration). */
const INVALID = "Invalid username or password.";
// GitLab's words (Devise's blocked message).
const BLOCKED = "Your account has been blocked. Please contact your GitLab administrator if you think this is an error.";

/** Where a completed sign-in goes: first to choose a new password when an administrator set it (GitLab). */
function afterSignIn(user: UserRow, redirectTo: string): string {
  return passwordExpired(user) ? `/profile/password/new?redirect_to=${encodeURIComponent(redirectTo)}` : redirectTo;
}

function throttledMessage(e: ThrottledError): string {
  const minutes = Math.max(1, Math.ceil(e.status.retryAfterSeconds / 60));
  return `Too many failed sign-in attempts from your network address. Try again in ${minutes} minute${minutes === 1 ? "" : "s"}.`;
}

function SignInForm(props: { token: string; redirectTo: string; login?: string; error?: string | null; notice?: string | null }) {
  return (
    <div class="narrow">
      <h1>Sign in</h1>
      <Flash kind="error" message={props.error} />
      <Flash kind="notice" message={props.notice} />
      <form method="post" action="/users/sign_in" class="card">
        <CsrfField token={props.token} />
        <input type="hidden" name="redirect_to" value={props.redirectTo} />
        <label for="user_login">Username</label>
        <p class="hint" id="user_login_hint">Your username or email address.</p>
        <input type="text" id="user_login" name="username" autocomplete="username" required autofocus value={props.login ?? ""} aria-describedby="user_login_hint" />
        <label for="user_password">Password</label>
        <input type="password" id="user_password" name="password" autocomplete="current-password" required />
        <p>
          <button type="submit">Sign in</button>
        </p>
        <p>
          <a href="/users/password/new">Forgot your password?</a>
        </p>
      </form>
    </div>
  );
}

function TwoFactorForm(props: { token: string; redirectTo: string; error?: string | null }) {
  return (
    <div class="narrow">
      <h1>Two-factor authentication</h1>
      <Flash kind="error" message={props.error} />
      <form method="post" action="/users/sign_in/two_factor" class="card">
        <CsrfField token={props.token} />
        <input type="hidden" name="redirect_to" value={props.redirectTo} />
        <label for="user_otp_attempt">Two-factor code</label>
        <p class="hint" id="otp_hint">Enter the 6-digit code from your authenticator app, or one of your recovery codes.</p>
        <input type="text" id="user_otp_attempt" name="otp_attempt" autocomplete="one-time-code" inputmode="text" required autofocus aria-describedby="otp_hint" />
        <p>
          <button type="submit">Verify code</button>
        </p>
      </form>
    </div>
  );
}

signIn.get("/users/sign_in", async (c) => {
  const redirectTo = safeRedirectPath(c.req.query("redirect_to"));
  if (await currentUser(c)) return c.redirect(redirectTo, 302);
  return renderPage(c, "Sign in", <SignInForm token={await csrfToken(c)} redirectTo={redirectTo} notice={takeFlash(c)} />);
});

signIn.post("/users/sign_in", async (c) => {
  const body = await c.req.parseBody();
  const login = typeof body.username === "string" ? body.username : "";
  const password = typeof body.password === "string" ? body.password : "";
  const redirectTo = safeRedirectPath(typeof body.redirect_to === "string" ? body.redirect_to : null);
  const again = async (error: string, status: 401 | 403 | 422 | 429) =>
    renderPage(c, "Sign in", <SignInForm token={await csrfToken(c)} redirectTo={redirectTo} login={login} error={error} />, status);
  if (!login || !password) return again("Enter your username and password.", 422);
  try {
    const user = await verifyPasswordLogin(c.env, login, password, clientAddress(c.req.raw, c.env), { reactivate: true });
    if (user.otpRequired) {
      await startSession(c, user.id, { pendingTwoFactor: true });
      return c.redirect(`/users/sign_in/two_factor?redirect_to=${encodeURIComponent(redirectTo)}`, 303);
    }
    await startSession(c, user.id);
    return c.redirect(afterSignIn(user, redirectTo), 303);
  } catch (e) {
    if (e instanceof ThrottledError) {
      for (const [k, v] of Object.entries(rateLimitHeaders(e.status))) c.header(k, v);
      return again(throttledMessage(e), 429);
    }
    const reason = reasonOf(e, LOGIN_FAILURES);
    if (!reason) throw e;
    return reason === "blocked" ? again(BLOCKED, 403) : again(INVALID, 401);
  }
});

signIn.get("/users/sign_in/two_factor", async (c) => {
  const redirectTo = safeRedirectPath(c.req.query("redirect_to"));
  if (!(await pendingTwoFactorUser(c))) return c.redirect(`/users/sign_in?redirect_to=${encodeURIComponent(redirectTo)}`, 302);
  return renderPage(c, "Two-factor authentication", <TwoFactorForm token={await csrfToken(c)} redirectTo={redirectTo} />);
});

signIn.post("/users/sign_in/two_factor", async (c) => {
  const body = await c.req.parseBody();
  const code = typeof body.otp_attempt === "string" ? body.otp_attempt : "";
  const redirectTo = safeRedirectPath(typeof body.redirect_to === "string" ? body.redirect_to : null);
  const user = await pendingTwoFactorUser(c);
  if (!user) {
    return renderPage(c, "Sign in", <SignInForm token={await csrfToken(c)} redirectTo={redirectTo} error="Your sign-in took too long. Sign in again." />, 401);
  }
  const source = { ip: clientAddress(c.req.raw, c.env) };
  const backToSignIn = async (error: string, status: 401 | 429) => {
    await endSession(c);
    return renderPage(c, "Sign in", <SignInForm token={await csrfToken(c)} redirectTo={redirectTo} error={error} />, status);
  };
  try {
    await assertAttemptAllowed(c.env, source);
    // An address locked out of the account, or one the account never signed in from while its
    // second-factor budget is spent (src/services/accounts/account-guard.ts), starts again at the password.
    if ((await guardRefuses(c.env, user.id, source.ip, "two_factor")) || (await isLockedOut(c.env, user.id, source))) return backToSignIn(INVALID, 401);
    const method = code ? await verifySecondFactor(c.env, user, code) : null;
    if (!method) {
      // Wrong codes count towards the same lock as wrong passwords (GitLab), the account-wide
      // bound and the address throttle. The code that spends the account-wide budget ends the
      // pending sign-in (every one of the account's): the password must be proved again.
      const { guarded } = await recordFailedAttempt(c.env, user.id, source, "two_factor");
      if (guarded) return backToSignIn(INVALID, 401);
      return renderPage(c, "Two-factor authentication", <TwoFactorForm token={await csrfToken(c)} redirectTo={redirectTo} error="Invalid two-factor code." />, 401);
    }
    await recordSuccessfulSignIn(c.env, user, source.ip, method);
  } catch (e) {
    if (!(e instanceof ThrottledError)) throw e;
    for (const [k, v] of Object.entries(rateLimitHeaders(e.status))) c.header(k, v);
    return backToSignIn(throttledMessage(e), 429);
  }
  await startSession(c, user.id);
  return c.redirect(afterSignIn(user, redirectTo), 303);
});

/** Sign-out is a POST with the CSRF token (a link could be triggered by any other site). */
signIn.post("/users/sign_out", async (c) => {
  // The session's end is a change with its audit row (src/services/logout/session-end.ts): the
  // clients it signed into are told (Back-Channel Logout), its session-bound grants end.
  await signOutBrowser(c, "sign_out");
  return c.redirect("/users/sign_in", 303);
});

export default signIn;
