/**
 * `redirect_to` after sign-in may only name a path on this service: no scheme, no host, no
 * protocol-relative `//host`, no backslash (browsers read `/\host` as `//host`), no control
 * characters. Anything else falls back to the home page.
 *
 * The checks apply to the normalised result, not only to the input (issue 8 item 4): dot segments
 * and their percent-encoded forms collapse on resolution, so `/.//evil.example`,
 * `/a/..//evil.example` and `/%2e//evil.example` all resolve to the path `//evil.example`, which a
 * browser given it as a Location reads as another host.
 */
export function safeRedirectPath(value: string | null | undefined, fallback = "/"): string {
  if (!value || value.length > 2048) return fallback;
  if (!isLocalPath(value)) return fallback;
  // Resolve against a dummy origin: whatever the browser would make of it must stay on it.
  try {
    const base = "http://service.invalid";
    const url = new URL(value, base);
    if (url.origin !== base) return fallback;
    const path = `${url.pathname}${url.search}${url.hash}`;
    return isLocalPath(path) ? path : fallback;
  } catch {
    return fallback;
  }
}

/** A path-absolute reference a browser cannot read as naming another host. */
function isLocalPath(value: string): boolean {
  return value.startsWith("/") && !value.startsWith("//") && !/[\\\u0000-\u001f\u007f]/.test(value);
}
