import { raw } from "hono/html";
import qrcode from "qrcode-generator";
import {
  RECOVERY_CODE_COUNT,
  TWO_FACTOR_FAILURES,
  type TwoFactorFailure,
  disableTwoFactor,
  enableTwoFactor,
  pendingEnrolment,
  regenerateRecoveryCodes,
  remainingRecoveryCodes,
} from "../../services/accounts/two-factor";
import { reasonOf } from "../../domain/errors";
import type { UserRow } from "../../db/users";
import { statusFor, throttledPageError } from "../throttled";
import { ThrottledError } from "../../throttle";
import { CsrfField, Flash, renderPage, setFlash, takeFlash, type PageEnv } from "../page";
import { csrfToken, endOtherSessions } from "../session";
import { clientAddress } from "../../http/client-address";
import { pageApp } from "../door";

/** /profile/two_factor_auth: enrol TOTP (secret, otpauth URI, QR code), recovery codes, disable. */
const twoFactor = pageApp({ enter: "signed-in" });

const ERRORS: Record<TwoFactorFailure, string> = {
  wrong_password: "The current password is incorrect.",
  wrong_code: "The verification code is invalid or was already used. Try the next code from your app.",
  already_enabled: "Two-factor authentication is already enabled.",
  not_enabled: "Two-factor authentication is not enabled.",
};

/** The sentence a refused two-factor step shows on its page; null for anything else. */
function pageError(e: unknown): string | null {
  const reason = reasonOf(e, TWO_FACTOR_FAILURES);
  return reason ? ERRORS[reason] : null;
}

function qrSvg(uri: string): string {
  const qr = qrcode(0, "M");
  qr.addData(uri);
  qr.make();
  return qr.createSvgTag({ cellSize: 4, margin: 2, scalable: true });
}

function RecoveryCodes({ codes }: { codes: string[] }) {
  return (
    <section class="card" aria-labelledby="codes-heading">
      <h2 id="codes-heading">Recovery codes</h2>
      <p>
        Save these {RECOVERY_CODE_COUNT} codes somewhere safe. Each signs you in once if you lose your device.{" "}
        <strong>They are shown only now.</strong>
      </p>
      <ul class="codes" id="recovery-codes" aria-label="Recovery codes">
        {codes.map((code) => (
          <li>
            <code>{code}</code>
          </li>
        ))}
      </ul>
      <button type="button" class="secondary" data-copy="recovery-codes" hidden>
        Copy codes
      </button>
      <p>
        <a class="button" href="/profile/two_factor_auth">
          I have saved my recovery codes
        </a>
      </p>
    </section>
  );
}

function PasswordField({ id }: { id: string }) {
  return (
    <>
      <label for={id}>Current password</label>
      <input type="password" id={id} name="current_password" autocomplete="current-password" required />
    </>
  );
}

async function enabledPage(c: Parameters<typeof renderPage>[0], user: UserRow, opts: { error?: string | null; notice?: string | null; codes?: string[] } = {}) {
  const token = await csrfToken(c);
  return renderPage(
    c,
    "Two-factor authentication",
    <>
      <h1>Two-factor authentication</h1>
      <Flash kind="error" message={opts.error} />
      <Flash kind="notice" message={opts.notice} />
      {opts.codes ? <RecoveryCodes codes={opts.codes} /> : null}
      <p>
        Two-factor authentication is <strong>enabled</strong>. You have {remainingRecoveryCodes(user)} unused recovery
        codes. The password grant of <code>/oauth/token</code> is refused for your account; use a{" "}
        <a href="/profile/personal_access_tokens">personal access token</a> for scripts.
      </p>
      <form method="post" action="/profile/two_factor_auth/codes" class="card">
        <h2>Regenerate recovery codes</h2>
        <CsrfField token={token} />
        <PasswordField id="regenerate_password" />
        <button type="submit" class="secondary">
          Regenerate recovery codes
        </button>
      </form>
      <form method="post" action="/profile/two_factor_auth/disable" class="card" data-confirm="Disable two-factor authentication?">
        <h2>Disable two-factor authentication</h2>
        <CsrfField token={token} />
        <PasswordField id="disable_password" />
        <button type="submit" class="danger">
          Disable two-factor authentication
        </button>
      </form>
    </>,
    opts.error ? 422 : 200,
  );
}

async function enrolPage(c: Parameters<typeof renderPage>[0], user: UserRow, error?: string | null) {
  const { secret, uri } = await pendingEnrolment(c.env, user);
  const grouped = secret.match(/.{1,4}/g)!.join(" ");
  return renderPage(
    c,
    "Two-factor authentication",
    <>
      <h1>Two-factor authentication</h1>
      <Flash kind="error" message={error} />
      <Flash kind="notice" message={takeFlash(c)} />
      <p>
        Increase your account's security with a time-based one-time password (TOTP, RFC 6238) from an authenticator
        app such as FreeOTP, Aegis or Google Authenticator.
      </p>
      <div class="card">
        <h2>1. Scan this QR code with your app</h2>
        <div class="qr" role="img" aria-label="QR code holding the otpauth URI below">
          {raw(qrSvg(uri))}
        </div>
        <p>Or enter this key by hand (time-based, 6 digits, 30 seconds):</p>
        <p class="secret-row">
          <code id="otp-secret" data-secret={secret}>
            {grouped}
          </code>
          <button type="button" class="secondary" data-copy="otp-secret" hidden>
            Copy key
          </button>
        </p>
        <details>
          <summary>Show the otpauth:// URI</summary>
          <p>
            <code id="otp-uri">{uri}</code>
          </p>
        </details>
      </div>
      <form method="post" action="/profile/two_factor_auth" class="card">
        <h2>2. Confirm with a code</h2>
        <CsrfField token={await csrfToken(c)} />
        <label for="pin_code">Verification code</label>
        <p class="hint" id="pin_hint">The 6-digit code your app shows now.</p>
        <input type="text" id="pin_code" name="pin_code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9 ]{6,7}" required aria-describedby="pin_hint" />
        <PasswordField id="enable_password" />
        <p>
          <button type="submit">Register with two-factor app</button>
        </p>
      </form>
    </>,
    error ? 422 : 200,
  );
}

twoFactor.get("/profile/two_factor_auth", async (c) => {
  const user = c.var.user;
  if (user.otpRequired) return enabledPage(c, user, { notice: takeFlash(c) });
  return enrolPage(c, user);
});

twoFactor.post("/profile/two_factor_auth", async (c) => {
  const user = c.var.user;
  if (user.otpRequired) return enabledPage(c, user, { error: ERRORS.already_enabled });
  const body = await c.req.parseBody();
  const code = String(body.pin_code ?? "").replace(/\s/g, "");
  const password = String(body.current_password ?? "");
  try {
    const codes = await enableTwoFactor(c.env, user, code, password, clientAddress(c.req.raw, c.env));
    // Changed two-factor settings end the user's other sessions (issue 12); this browser stays.
    await endOtherSessions(c, user.id);
    const fresh = { ...user, otpRequired: true, otpBackupCodeHashes: JSON.stringify(codes) };
    return enabledPage(c, fresh, { notice: "Two-factor authentication is now enabled.", codes });
  } catch (e) {
    const error = e instanceof ThrottledError ? throttledPageError(c, e) : pageError(e);
    if (error) return statusFor(e, await enrolPage(c, user, error));
    throw e;
  }
});

twoFactor.post("/profile/two_factor_auth/codes", async (c) => {
  const user = c.var.user;
  const body = await c.req.parseBody();
  try {
    const codes = await regenerateRecoveryCodes(c.env, user, String(body.current_password ?? ""), clientAddress(c.req.raw, c.env));
    await endOtherSessions(c, user.id);
    const fresh = { ...user, otpBackupCodeHashes: JSON.stringify(codes) };
    return enabledPage(c, fresh, { notice: "New recovery codes were generated; the old ones no longer work.", codes });
  } catch (e) {
    const error = e instanceof ThrottledError ? throttledPageError(c, e) : pageError(e);
    if (error) return statusFor(e, await (user.otpRequired ? enabledPage(c, user, { error }) : enrolPage(c, user, error)));
    throw e;
  }
});

twoFactor.post("/profile/two_factor_auth/disable", async (c) => {
  const user = c.var.user;
  const body = await c.req.parseBody();
  if (!user.otpRequired) return c.redirect("/profile/two_factor_auth", 303);
  try {
    await disableTwoFactor(c.env, user, String(body.current_password ?? ""), clientAddress(c.req.raw, c.env));
    await endOtherSessions(c, user.id);
  } catch (e) {
    const error = e instanceof ThrottledError ? throttledPageError(c, e) : pageError(e);
    if (error) return statusFor(e, await enabledPage(c, user, { error }));
    throw e;
  }
  setFlash(c, "Two-factor authentication has been disabled.");
  return c.redirect("/profile/two_factor_auth", 303);
});

export default twoFactor;
