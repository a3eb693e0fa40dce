import { isLoopbackAddressUrl, isPublicHost } from "./public-host";

/**
 * The rule for a URL this server will call because a client registered it (a `jwks_uri`, a
 * `backchannel_logout_uri`): absolute, https, no credentials, no fragment, and a public host
 * (./public-host.ts, the guard of Client ID Metadata Documents). `allowLoopback`
 * (ALLOW_LOOPBACK_CLIENT_METADATA, development) admits http on 127.0.0.1 or [::1] instead. The same
 * check runs when the URL is registered and again before every call, so a row stored under another
 * configuration is still refused.
 */
export const MAX_OUTBOUND_URI_LENGTH = 2048;

export function checkOutboundUri(value: string, allowLoopback: boolean): { ok: true; uri: string } | { ok: false; reason: string } {
  if (value.length > MAX_OUTBOUND_URI_LENGTH) return { ok: false, reason: `is longer than ${MAX_OUTBOUND_URI_LENGTH} characters` };
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { ok: false, reason: "must be an absolute URI" };
  }
  const loopback = allowLoopback && isLoopbackAddressUrl(url);
  if (url.protocol !== "https:" && !loopback) return { ok: false, reason: "must use https" };
  if (url.username || url.password) return { ok: false, reason: "must not contain credentials" };
  if (url.hash || value.includes("#")) return { ok: false, reason: "cannot contain a fragment" };
  if (!loopback && !isPublicHost(url.hostname)) return { ok: false, reason: "must name a public host" };
  return { ok: true, uri: url.href };
}
