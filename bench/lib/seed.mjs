// Seeds a freshly started service over HTTP, as a client would: root's token from the password
// grant, a user "bench", a trusted public application (PKCE) and a confidential one, a signed-in
// browser session, and helpers to mint token families, code exchanges (of any trusted application
// and scope) and a personal access token.
// Shared by bench/oauth.mjs and bench/peers.mjs.
import { createHash, randomBytes } from "node:crypto";

export const ROOT_PASSWORD = "bench-Root-Password-1";
export const USER_PASSWORD = "bench-User-Password-1";
/** The vars a bench run starts the Worker with (startBuiltWorker adds a SECRET_KEY_BASE of its own). */
export const BENCH_VARS = {
  BENCH_ROUTES: "true",
  ROOT_PASSWORD,
  SEED_DEMO_DATA: "false",
  ALLOW_INSECURE_REDIRECTS: "true",
};

export const form = (fields) => ({ method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: new URLSearchParams(fields) });

export async function json(res) {
  const text = await res.text();
  if (!res.ok) throw new Error(`${res.status} ${text}`);
  return JSON.parse(text);
}

export async function seedService(base) {
  const root = await json(await fetch(`${base}/oauth/token`, form({ grant_type: "password", username: "root", password: ROOT_PASSWORD })));
  const admin = { Authorization: `Bearer ${root.access_token}`, "Content-Type": "application/json" };
  await json(
    await fetch(`${base}/api/v4/users`, {
      method: "POST",
      headers: admin,
      body: JSON.stringify({ username: "bench", name: "Bench", email: "bench@example.com", password: USER_PASSWORD, skip_confirmation: true }),
    }),
  );
  const redirectUri = "http://127.0.0.1/callback";
  /** A trusted application (its authorizations skip the consent page) of the user "bench". */
  const newApp = (confidential, scopes = "api read_user") =>
    fetch(`${base}/api/v4/applications`, {
      method: "POST",
      headers: admin,
      body: JSON.stringify({ name: "bench", redirect_uri: redirectUri, scopes, confidential, trusted: true }),
    }).then(json);
  const app = await newApp(false);
  const confidentialApp = await newApp(true);

  // Sign in with the form (cookies by hand), then one trusted authorization per family.
  const cookies = new Map();
  const keep = (res) => {
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(";");
      const i = pair.indexOf("=");
      cookies.set(pair.slice(0, i), pair.slice(i + 1));
    }
    return res;
  };
  const cookie = () => [...cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  const page = await keep(await fetch(`${base}/users/sign_in`)).text();
  const csrf = /name="authenticity_token" value="([^"]+)"/.exec(page)[1];
  const signIn = keep(
    await fetch(`${base}/users/sign_in`, {
      ...form({ authenticity_token: csrf, username: "bench", password: USER_PASSWORD, redirect_to: "/" }),
      headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: cookie(), Origin: base },
      redirect: "manual",
    }),
  );
  if (signIn.status !== 303) throw new Error(`sign-in: ${signIn.status}`);

  /**
   * The signed-in user's authorization of a trusted public `client` (PKCE, no page): the token
   * request that exchanges its code, not yet sent. `scope` defaults to the application's scopes.
   */
  async function codeExchange(client = app, scope = undefined) {
    const verifier = randomBytes(32).toString("base64url");
    const challenge = createHash("sha256").update(verifier).digest("base64url");
    const q = new URLSearchParams({ client_id: client.application_id, redirect_uri: redirectUri, response_type: "code", state: "b", code_challenge: challenge, code_challenge_method: "S256", ...(scope ? { scope } : {}) });
    const res = await fetch(`${base}/oauth/authorize?${q}`, { headers: { Cookie: cookie() }, redirect: "manual" });
    const code = new URL(res.headers.get("location")).searchParams.get("code");
    if (!code) throw new Error(`authorize ${client.application_id} (${scope ?? "default scopes"}): ${res.status} ${res.headers.get("location")}`);
    return form({ grant_type: "authorization_code", client_id: client.application_id, code, redirect_uri: redirectUri, code_verifier: verifier });
  }

  /** A new token family of a trusted public application (authorization code with PKCE). */
  async function family(client = app, scope = undefined) {
    return json(await fetch(`${base}/oauth/token`, await codeExchange(client, scope)));
  }

  /** A personal access token of the user "bench" (scope api), created through the admin API. */
  async function personalAccessToken(userId) {
    const expires = new Date(Date.now() + 30 * 86400_000).toISOString().slice(0, 10);
    const body = JSON.stringify({ name: "bench", scopes: ["api"], expires_at: expires });
    return (await json(await fetch(`${base}/api/v4/users/${userId}/personal_access_tokens`, { method: "POST", headers: admin, body }))).token;
  }

  /** Another trusted application with the given scopes (e.g. the OpenID Connect ones). */
  const application = ({ confidential = false, scopes } = {}) => newApp(confidential, scopes);

  return { root, admin, app, confidentialApp, redirectUri, application, codeExchange, family, personalAccessToken };
}
