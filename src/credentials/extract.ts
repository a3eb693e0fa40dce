import { parseBasic } from "./basic";

/**
 * Where a request may carry its credential, and the one place that reads those places
 * (DESIGN.md, "One front door"): nothing outside src/credentials/ reads Authorization,
 * PRIVATE-TOKEN or DEPLOY-TOKEN. Each family says which places it accepts (front-door.ts):
 *  - "bearer": Authorization: Bearer (RFC 6750 §2.1), or Authorization: DPoP (RFC 9449 §7.1), which
 *    marks the credential as presented with a DPoP proof (`dpop`);
 *  - "private-token", "deploy-token": GitLab's headers;
 *  - "query": ?access_token= or ?private_token= (GitLab);
 *  - "access-token-query": ?access_token= only (/oauth/token/info, spec);
 *  - "basic": HTTP Basic, the password is the secret and the user name the login (RFC 7617);
 *  - "form": access_token in a form-encoded POST body (RFC 6750 §2.2).
 */
export type CredentialSource = "bearer" | "private-token" | "deploy-token" | "query" | "access-token-query" | "basic" | "form";

export interface PresentedCredential {
  secret: string;
  /** The Basic login; null for every other place. */
  username: string | null;
  source: CredentialSource;
  /** Sent under the DPoP scheme (RFC 9449 §7.1): the request must carry a proof for a bound token. */
  dpop?: boolean;
}

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** The bearer token of the Authorization header, or null. */
export function bearerToken(req: Request): string | null {
  return BEARER.exec(req.headers.get("authorization") ?? "")?.[1] ?? null;
}

const DPOP = /^DPoP\s+(\S+)\s*$/i;

/** The access token of `Authorization: DPoP <token>` (RFC 9449 §7.1), or null. */
export function dpopToken(req: Request): string | null {
  return DPOP.exec(req.headers.get("authorization") ?? "")?.[1] ?? null;
}

/** HTTP Basic credentials (user name and password, UTF-8), or null when absent or malformed. */
export function basicCredentials(req: Request): { username: string; password: string } | null {
  return parseBasic(req.headers.get("authorization"));
}

/** True when the request sends an Authorization header of any scheme. */
export function hasAuthorizationHeader(req: Request): boolean {
  return req.headers.has("authorization");
}

/**
 * The first credential found in the given places, in GitLab's order of precedence (the order of
 * `sources`). `form` needs the body: pass it when the family accepts that place.
 */
export function presentedCredential(req: Request, sources: readonly CredentialSource[], form?: URLSearchParams | null): PresentedCredential | null {
  for (const source of sources) {
    const secret = read(req, source, form);
    if (secret) return secret;
  }
  return null;
}

function read(req: Request, source: CredentialSource, form?: URLSearchParams | null): PresentedCredential | null {
  const found = (secret: string | null | undefined, username: string | null = null): PresentedCredential | null =>
    secret ? { secret, username, source } : null;
  switch (source) {
    case "bearer": {
      // One read of the header for both schemes (every token-authenticated request comes here).
      const authorization = req.headers.get("authorization");
      if (authorization === null) return null;
      const dpop = DPOP.exec(authorization)?.[1];
      return dpop ? { secret: dpop, username: null, source, dpop: true } : found(BEARER.exec(authorization)?.[1]);
    }
    case "private-token":
      return found(req.headers.get("private-token")?.trim());
    case "deploy-token":
      return found(req.headers.get("deploy-token")?.trim());
    case "query": {
      // No query string, no parameter: the URL is parsed only when there is one.
      if (!req.url.includes("?")) return null;
      const url = new URL(req.url);
      return found(url.searchParams.get("access_token") || url.searchParams.get("private_token"));
    }
    case "access-token-query":
      return req.url.includes("?") ? found(new URL(req.url).searchParams.get("access_token")) : null;
    case "basic": {
      const basic = basicCredentials(req);
      // A Basic login with an empty password is still an attempt (it fails), never anonymous.
      return basic ? { secret: basic.password, username: basic.username, source } : null;
    }
    case "form":
      return found(form?.get("access_token"));
  }
}

/** GitLab's places for an API token: Authorization: Bearer, PRIVATE-TOKEN, then the query. */
export const API_TOKEN_SOURCES = ["bearer", "private-token", "query"] as const satisfies readonly CredentialSource[];

/** Where a request may carry its token (GitLab): Bearer, PRIVATE-TOKEN, or the query. */
export function extractToken(req: Request): string | null {
  return presentedCredential(req, API_TOKEN_SOURCES)?.secret ?? null;
}

/** /oauth/token/info's two places for the token (spec): Authorization: Bearer (or DPoP), or access_token. */
export function extractBearerOrQuery(req: Request): PresentedCredential | null {
  return presentedCredential(req, ["bearer", "access-token-query"]);
}

/**
 * RFC 6749 §2.3.1: client credentials in HTTP Basic, each part form-encoded. null without a Basic
 * header; "malformed" when one is sent that cannot be decoded (the OAuth family answers
 * invalid_client).
 */
export function clientBasicCredentials(req: Request): { clientId: string; clientSecret: string } | "malformed" | null {
  const auth = req.headers.get("authorization");
  if (!auth || !/^Basic\s+/i.test(auth)) return null;
  let decoded: string;
  try {
    decoded = atob(auth.replace(/^Basic\s+/i, "").trim());
  } catch {
    return "malformed";
  }
  const i = decoded.indexOf(":");
  if (i < 0) return "malformed";
  try {
    const dec = (s: string) => decodeURIComponent(s.replace(/\+/g, " "));
    return { clientId: dec(decoded.slice(0, i)), clientSecret: dec(decoded.slice(i + 1)) };
  } catch {
    return "malformed";
  }
}
