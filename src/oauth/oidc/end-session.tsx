import type { Context } from "hono";
import { AppError } from "../../domain/errors";
import { findApplicationByUid, type ApplicationRow } from "../../db/applications";
import { getDb } from "../../db/client";
import { isRegisteredPostLogoutUri } from "../../domain/logout-settings";
import { CsrfField, pageApp, pageVisit, type PageEnv } from "../page-door";
import { issuerOf } from "../issuer";
import { checkIdTokenHint, type IdTokenHint } from "./id-token-hint";
import { MAX_STATE_LENGTH } from "../authorize-request";

/**
 * The end-session endpoint, /oauth/logout (OpenID Connect RP-Initiated Logout 1.0; docs/oidc.md,
 * "Signing out"). A page behind its page door (src/web/door.ts), mounted at /oauth by src/app.ts:
 * GET and POST (§2: both) on a door without the CSRF check (`crossSiteForm`), since a relying party
 * sends the browser here from its own site; the confirmation it shows posts to
 * /oauth/logout/confirm, behind an ordinary door with the check. Both without form-action: the
 * confirmation's answer redirects to the application (as on the consent page).
 *
 * The request is checked first and refused on a page (never redirected) when it is wrong: an
 * `id_token_hint` not issued by this server, an unknown `client_id` or one not in the hint's `aud`,
 * a `post_logout_redirect_uri` without a client to match it against or not registered by it
 * exactly (§3). Then the browser is signed out at once when the request proves it comes for the
 * signed-in person (a hint whose `sub` is the session's user, whose `sid`, when it has one, is the
 * session's, and a `logout_hint`, when given, naming that user), and otherwise asked (§2: "the OP
 * SHOULD ask the End-User whether to log out"). Signing out is pageVisit's signOut
 * (src/web/session.ts signOutBrowser): the session ends as a change, the clients it signed into get their logout tokens.
 * Last, the browser goes back to the registered `post_logout_redirect_uri` with `state` (§3), or
 * sees a page saying it is signed out. `ui_locales` is accepted and the page stays in English, the
 * only language served.
 */
const endpoint = pageApp({ enter: "anyone", formAction: false, crossSiteForm: true });
const confirmation = pageApp({ enter: "anyone", formAction: false });

interface EndSessionRequest {
  app: ApplicationRow | null;
  hint: Extract<IdTokenHint, { ok: true }> | null;
  redirect: string | null;
  state: string | null;
  logoutHint: string | null;
}

const PARAMS = ["id_token_hint", "logout_hint", "client_id", "post_logout_redirect_uri", "state", "ui_locales"] as const;

async function checkRequest(c: Context<PageEnv>, params: URLSearchParams): Promise<{ ok: true; request: EndSessionRequest } | { ok: false; description: string }> {
  for (const name of PARAMS) if (params.getAll(name).length > 1) return { ok: false, description: `The ${name} parameter was given more than once.` };
  const get = (name: (typeof PARAMS)[number]) => params.get(name) || null;
  const db = getDb(c.env.DB);
  let hint: EndSessionRequest["hint"] = null;
  const hintValue = get("id_token_hint");
  if (hintValue) {
    const checked = await checkIdTokenHint(c.env, issuerOf(c), hintValue);
    if (checked.ok) hint = checked;
    else if (checked.reason === "invalid") return { ok: false, description: "The id_token_hint is not an ID token this server issued." };
  }
  const clientId = get("client_id");
  let app: ApplicationRow | null = null;
  if (clientId) {
    if (clientId.length > 2048 || !(app = await findApplicationByUid(db, clientId))) return { ok: false, description: "The client_id names no application." };
    if (hint && !hint.aud.includes(clientId)) return { ok: false, description: "The client_id is not the audience of the id_token_hint." };
  } else if (hint && hint.aud.length === 1) {
    app = await findApplicationByUid(db, hint.aud[0]);
  }
  const redirect = get("post_logout_redirect_uri");
  if (redirect) {
    if (!app) return { ok: false, description: "A post_logout_redirect_uri needs the client_id or an id_token_hint that names the application." };
    if (!isRegisteredPostLogoutUri(app.postLogoutRedirectUris, redirect)) {
      return { ok: false, description: "The post_logout_redirect_uri is not registered for this application." };
    }
  }
  const state = get("state");
  if (state && state.length > MAX_STATE_LENGTH) return { ok: false, description: "The state is too long." };
  const logoutHint = get("logout_hint");
  if (logoutHint && logoutHint.length > 255) return { ok: false, description: "The logout_hint is too long." };
  return { ok: true, request: { app, hint, redirect, state, logoutHint } };
}

/** Whether the request proves it is for this session's person (see above): then no question is asked. */
function provesSession(r: EndSessionRequest, session: { userId: number; sid: string | null; username: string; email: string }): boolean {
  if (!r.hint || r.hint.sub !== String(session.userId)) return false;
  if (r.hint.sid && r.hint.sid !== session.sid) return false;
  if (r.logoutHint) {
    const h = r.logoutHint.toLowerCase();
    if (h !== session.username.toLowerCase() && h !== session.email.toLowerCase() && h !== String(session.userId)) return false;
  }
  return true;
}

function refused(c: Context<PageEnv>, description: string): Promise<Response> {
  return pageVisit(c).render(
    "Sign-out error",
    <div class="narrow">
      <h1>Sign-out error</h1>
      <p class="flash error" role="alert">
        {description}
      </p>
    </div>,
    400,
  );
}

/** Back to the application (its registered URI, with `state`), or the page that says where the browser stands. */
function finish(c: Context<PageEnv>, r: EndSessionRequest, signedOut: boolean): Response | Promise<Response> {
  if (r.redirect) {
    const url = new URL(r.redirect);
    if (r.state) url.searchParams.append("state", r.state);
    return c.redirect(url.href, c.req.method === "POST" ? 303 : 302);
  }
  const title = signedOut ? "You have been signed out" : "You are signed out";
  return pageVisit(c).render(
    title,
    <div class="narrow">
      <h1>{title}</h1>
      <p>
        <a href="/users/sign_in">Sign in again</a>
      </p>
    </div>,
  );
}

async function endSessionEndpoint(c: Context<PageEnv>, params: URLSearchParams): Promise<Response> {
  const checked = await checkRequest(c, params);
  if (!checked.ok) return refused(c, checked.description);
  const r = checked.request;
  const visit = pageVisit(c);
  const current = await visit.session();
  if (!current) return finish(c, r, false);
  if (provesSession(r, { userId: current.user.id, sid: current.row.sid, username: current.user.username, email: current.user.email })) {
    await visit.signOut("rp_initiated_logout");
    return finish(c, r, true);
  }
  const appName = r.app?.name ?? null;
  return visit.render(
    "Sign out",
    <div class="narrow">
      <h1>Sign out?</h1>
      <p>
        {appName ? (
          <>
            <strong>{appName}</strong> asks to sign you out
          </>
        ) : (
          "An application asks to sign you out"
        )}{" "}
        of <strong>{current.user.username}</strong>'s session here. Applications you signed in to with this session are told.
      </p>
      <form method="post" action="/oauth/logout/confirm" class="card">
        <CsrfField token={await visit.csrfToken()} />
        {r.app ? <input type="hidden" name="client_id" value={r.app.uid} /> : null}
        {r.redirect ? <input type="hidden" name="post_logout_redirect_uri" value={r.redirect} /> : null}
        {r.state ? <input type="hidden" name="state" value={r.state} /> : null}
        <p>
          <button type="submit" name="decision" value="sign_out">
            Sign out
          </button>{" "}
          <button type="submit" name="decision" value="stay" class="secondary">
            Stay signed in
          </button>
        </p>
      </form>
    </div>,
  );
}

/** The posted form's fields; a body that does not parse is the person's 400, never a 500. */
async function formParams(c: Context<PageEnv>): Promise<URLSearchParams> {
  let body: Record<string, unknown>;
  try {
    body = await c.req.parseBody({ all: true });
  } catch {
    throw new AppError("invalid", "The sign-out request's form could not be read.");
  }
  const out = new URLSearchParams();
  for (const [k, v] of Object.entries(body)) for (const one of [v].flat()) if (typeof one === "string") out.append(k, one);
  return out;
}

endpoint.get("/logout", (c) => endSessionEndpoint(c, new URL(c.req.url).searchParams));
endpoint.post("/logout", async (c) => endSessionEndpoint(c, await formParams(c)));

/** The answer to the confirmation (CSRF-checked by the pages): sign out, or stay; then back to the application. */
confirmation.post("/logout/confirm", async (c) => {
  const params = await formParams(c);
  const decision = params.get("decision");
  params.delete("decision");
  params.delete("authenticity_token");
  const checked = await checkRequest(c, params);
  if (!checked.ok) return refused(c, checked.description);
  const signedOut = decision === "sign_out" && (await pageVisit(c).signOut("rp_initiated_logout"));
  if (decision !== "sign_out" && !checked.request.redirect) return c.redirect("/", 303);
  return finish(c, checked.request, signedOut);
});

endpoint.route("/", confirmation);

export default endpoint;
