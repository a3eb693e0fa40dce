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

/**
 * Schemes that run or carry content in the browser rather than hand a URI to an app: never a
 * redirect target (GitLab's Doorkeeper `forbid_redirect_uri` refuses exactly these three).
 */
const FORBIDDEN_SCHEMES = new Set(["javascript:", "data:", "vbscript:"]);

/**
 * RFC 6749 §3.1.2: absolute, no fragment. https; http only for loopback hosts (RFC 8252 §7.3)
 * unless insecure redirects are allowed; and any other scheme as a native app's private-use scheme
 * (RFC 8252 §7.1: `com.example.app:/cb`, `cursor://...`), which MCP clients such as Cursor register.
 */
export function isAcceptableRedirectUri(uri: string, allowInsecure: boolean): boolean {
  const u = parse(uri);
  if (!u || u.hash || uri.includes("#")) return false;
  if (u.protocol === "http:") return allowInsecure || isLoopback(u);
  return !FORBIDDEN_SCHEMES.has(u.protocol);
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
