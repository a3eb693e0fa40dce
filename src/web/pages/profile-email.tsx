import { type Context } from "hono";
import { reasonOf } from "../../domain/errors";
import { clientAddress } from "../../http/client-address";
import { issuerOf } from "../../http/issuer";
import { EMAIL_CHANGE_FAILURES, requestOwnEmailChange } from "../../services/accounts/email-confirmation";
import { ThrottledError } from "../../throttle";
import { CsrfField, Flash, renderPage, setFlash, takeFlash, type PageEnv } from "../page";
import { csrfToken } from "../session";
import { throttledPageError } from "../throttled";
import { pageApp } from "../door";

/**
 * /profile/email: a person changes their e-mail address (GitLab's Edit profile, Email). The new
 * address takes effect once the link mailed to it is opened (src/services/accounts/email-confirmation.ts).
 */
const profileEmail = pageApp({ enter: "signed-in" });

const ERRORS: Record<(typeof EMAIL_CHANGE_FAILURES)[number], string> = {
  wrong_password: "You must provide a valid current password.",
  taken: "Email has already been taken.",
  unchanged: "That is already your email address.",
};

async function form(c: Context<PageEnv>, error?: string | null, status: 200 | 422 | 429 = 200) {
  const user = c.var.user;
  return renderPage(
    c,
    "Email",
    <div class="narrow">
      <h1>Email</h1>
      <Flash kind="notice" message={takeFlash(c)} />
      <Flash kind="error" message={error} />
      <p>
        Your email address is <strong class="id">{user.email}</strong>.
        {user.unconfirmedEmail ? (
          <>
            {" "}
            <span id="unconfirmed-email">
              A confirmation link was sent to <strong class="id">{user.unconfirmedEmail}</strong>; it takes effect once you open it.
            </span>
          </>
        ) : null}
      </p>
      <form method="post" action="/profile/email" class="card">
        <CsrfField token={await csrfToken(c)} />
        <label for="user_email">New email</label>
        <input type="email" id="user_email" name="email" autocomplete="email" required maxlength={254} />
        <label for="user_current_password">Current password</label>
        <input type="password" id="user_current_password" name="current_password" autocomplete="current-password" required />
        <p>
          <button type="submit">Send confirmation link</button>
        </p>
      </form>
    </div>,
    status,
  );
}

profileEmail.get("/profile/email", (c) => form(c));

profileEmail.post("/profile/email", async (c) => {
  const body = await c.req.parseBody();
  const field = (name: string) => (typeof body[name] === "string" ? (body[name] as string) : "");
  const email = field("email").trim().slice(0, 254);
  if (!/^[^\s@]+@[^\s@]+$/.test(email)) return form(c, "Email is invalid.", 422);
  try {
    await requestOwnEmailChange(c.env, issuerOf(c), c.var.user, { email, password: field("current_password") }, clientAddress(c.req.raw, c.env));
  } catch (e) {
    if (e instanceof ThrottledError) return form(c, throttledPageError(c, e), 429);
    const reason = reasonOf(e, EMAIL_CHANGE_FAILURES);
    if (!reason) throw e;
    return form(c, ERRORS[reason], 422);
  }
  setFlash(c, `A confirmation link was sent to ${email}. Your address changes once you open it.`);
  return c.redirect("/profile/email", 303);
});

export default profileEmail;
