import { createApplication, findApplicationByUid } from "../db/applications";
import { newApplicationTtl } from "../config";
import { isUniqueViolation } from "../db/errors";
import { getDb } from "../db/client";
import type { Bindings } from "../env";
import { getConfig } from "../config";

/**
 * The demo SPA at /-/demo/spa is a public (non-confidential) application, registered on first
 * start when SEED_DEMO_DATA is "true" (npm start). The origin it is served from is only known per
 * request, so it is registered for the loopback hosts without a port, which RFC 8252 §7.3 (and
 * DESIGN, Redirect URIs) lets match any port, plus the configured ISSUER's origin when one is set.
 * Its client_id is fixed so the page can name it without a lookup.
 */
export const DEMO_SPA_UID = "edge-auth-demo-spa";
export const DEMO_SPA_PATH = "/-/demo/spa";
export const DEMO_SPA_SCOPES = ["read_user", "api"];

export function demoSpaRedirectUris(env: Bindings): string[] {
  const uris = [`http://127.0.0.1${DEMO_SPA_PATH}`, `http://localhost${DEMO_SPA_PATH}`];
  const issuer = getConfig(env).issuer;
  if (issuer) {
    try {
      uris.push(`${new URL(issuer).origin}${DEMO_SPA_PATH}`);
    } catch {
      // an unparsable ISSUER is reported by the OAuth metadata, not here
    }
  }
  return uris;
}

export async function ensureDemoSpa(env: Bindings): Promise<void> {
  if (!getConfig(env).seedDemoData) return;
  const db = getDb(env.DB);
  if (await findApplicationByUid(db, DEMO_SPA_UID)) return;
  try {
    await createApplication(db, {
      uid: DEMO_SPA_UID,
      name: "Demo SPA (PKCE)",
      redirectUri: demoSpaRedirectUris(env).join("\n"),
      scopes: DEMO_SPA_SCOPES,
      confidential: false,
      expireAccessTokens: true,
      accessTokenTtlSeconds: newApplicationTtl(env),
      ownerId: null,
    });
  } catch (e) {
    // Two isolates starting at once: the other registered it first (uid is unique).
    if (!isUniqueViolation(e)) throw e;
  }
}
