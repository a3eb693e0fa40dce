import { env } from "cloudflare:test";
import { createLocalJWKSet, jwtVerify, type JWTPayload } from "jose";
import type { NewApplication } from "../../src/db/applications";
import { signedInUser, type Browser } from "../helpers/browser";
import { REDIRECT, call, getCode, makeApp, pkce, tokenRequest, type Tokens } from "../oauth/helpers";

/** OpenID Connect flows over HTTP, as a relying party and a browser drive them. */
export const OIDC_SCOPES = ["openid", "profile", "email", "api", "read_user"];

export type OidcTokens = Tokens & { id_token?: string };

export async function oidcApp(opts: Partial<NewApplication> = {}) {
  return makeApp({ confidential: false, scopes: OIDC_SCOPES, ...opts });
}

/** Code + PKCE for a fresh signed-in user, with the given scope and extra authorization parameters. */
export async function oidcLogin(scope: string, extra: Record<string, string> = {}, appOpts: Partial<NewApplication> = {}, signedIn?: Awaited<ReturnType<typeof signedInUser>>) {
  const { app } = await oidcApp(appOpts);
  const { user, browser } = signedIn ?? (await signedInUser());
  const { verifier, challenge } = await pkce();
  const code = await getCode(browser, { client_id: app.uid, scope, code_challenge: challenge, code_challenge_method: "S256", ...extra });
  const res = await tokenRequest({ grant_type: "authorization_code", client_id: app.uid, code, redirect_uri: REDIRECT, code_verifier: verifier });
  if (res.status !== 200) throw new Error(`exchange failed ${res.status} ${await res.text()}`);
  return { app, user, browser, tokens: (await res.json()) as OidcTokens };
}

export async function jwks() {
  return createLocalJWKSet((await (await call("/oauth/discovery/keys")).json()) as { keys: JsonWebKey[] } as never);
}

/** Verifies an id_token's signature against the published JWKS, and its iss and aud. */
export async function verifyIdToken(token: string, audience: string): Promise<JWTPayload & Record<string, unknown>> {
  const { payload, protectedHeader } = await jwtVerify(token, await jwks(), { issuer: "http://localhost", audience, algorithms: ["RS256"] });
  if (!protectedHeader.kid) throw new Error("id_token without kid");
  return payload as JWTPayload & Record<string, unknown>;
}

/** The creation time (ms) of the browser's session: what auth_time must say. */
export async function sessionStartedAt(userId: number): Promise<number> {
  const row = await env.DB.prepare("SELECT created_at FROM sessions WHERE user_id = ? AND pending_two_factor = 0 ORDER BY created_at DESC LIMIT 1")
    .bind(userId)
    .first<{ created_at: number }>();
  return row!.created_at;
}

export async function ageSessions(userId: number, byMs: number) {
  await env.DB.prepare("UPDATE sessions SET created_at = created_at - ? WHERE user_id = ?").bind(byMs, userId).run();
}

export type { Browser };
