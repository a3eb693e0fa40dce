/**
 * Where a request may carry its token (GitLab): Authorization: Bearer, the PRIVATE-TOKEN header,
 * or the access_token / private_token query parameters.
 */
export function extractToken(req: Request): string | null {
  const auth = req.headers.get("authorization");
  if (auth) {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(auth);
    if (m) return m[1];
  }
  const privateToken = req.headers.get("private-token");
  if (privateToken) return privateToken.trim();
  const url = new URL(req.url);
  return url.searchParams.get("access_token") || url.searchParams.get("private_token") || null;
}

/** /oauth/token/info's two places for the token (spec): Authorization: Bearer, or access_token. */
export function extractBearerOrQuery(req: Request): string | null {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.get("authorization") ?? "");
  if (m) return m[1];
  return new URL(req.url).searchParams.get("access_token");
}
