/**
 * Redirect-URI rules (DESIGN, Redirect URIs): registered one per line; exact string match, except
 * that the port of a loopback URI may vary (RFC 8252 §7.3); http: only for loopback hosts unless
 * insecure redirects are allowed (development).
 */
export function registeredUris(list: string): string[] {
  return list
    .split(/\r?\n/)
    .map((s) => s.trim())
    .filter(Boolean);
}

const LOOPBACK = new Set(["127.0.0.1", "[::1]", "localhost"]);

function parse(uri: string): URL | null {
  try {
    return new URL(uri);
  } catch {
    return null;
  }
}

export function isLoopback(url: URL): boolean {
  return url.protocol === "http:" && LOOPBACK.has(url.hostname);
}

/** RFC 6749 §3.1.2: absolute, no fragment. */
export function isAcceptableRedirectUri(uri: string, allowInsecure: boolean): boolean {
  const u = parse(uri);
  if (!u || u.hash || uri.includes("#")) return false;
  if (u.protocol === "http:") return allowInsecure || isLoopback(u);
  return u.protocol !== "javascript:" && u.protocol !== "data:";
}

export function matchesRegistered(requested: string, registered: readonly string[], allowInsecure: boolean): boolean {
  if (!isAcceptableRedirectUri(requested, allowInsecure)) return false;
  if (registered.includes(requested)) return true;
  const r = parse(requested)!;
  if (!isLoopback(r)) return false;
  return registered.some((candidate) => {
    const c = parse(candidate);
    if (!c || !isLoopback(c)) return false;
    // Everything but the port must be identical.
    c.port = r.port;
    return c.href === r.href;
  });
}
