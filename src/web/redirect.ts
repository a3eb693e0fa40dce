/**
 * `redirect_to` after sign-in may only name a path on this service: no scheme, no host, no
 * protocol-relative `//host`, no backslash (browsers read `/\host` as `//host`), no control
 * characters. Anything else falls back to the home page.
 */
export function safeRedirectPath(value: string | null | undefined, fallback = "/"): string {
  if (!value || value.length > 2048) return fallback;
  if (!value.startsWith("/") || value.startsWith("//")) return fallback;
  if (/[\\\u0000-\u001f\u007f]/.test(value)) return fallback;
  // Resolve against a dummy origin: whatever the browser would make of it must stay on it.
  try {
    const base = "http://service.invalid";
    const url = new URL(value, base);
    if (url.origin !== base) return fallback;
    return `${url.pathname}${url.search}${url.hash}`;
  } catch {
    return fallback;
  }
}
