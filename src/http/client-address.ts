import { getConfig } from "../config";
import type { Bindings } from "../env";

/**
 * The client address of a request: the one place that decides it (DESIGN.md, "Client address").
 * Every throttle, lockout, audit row and session record asks this function; nothing else reads
 * CF-Connecting-IP or X-Forwarded-For.
 *
 * - Deployed on Cloudflare, CF-Connecting-IP is set by Cloudflare on every request and a client
 *   cannot forge it.
 * - Under `npm start`, wrangler dev passes a client-sent CF-Connecting-IP through to the Worker
 *   unchanged (miniflare's entry worker sets it from the socket only when it is absent, and the
 *   Worker sees neither the socket nor `request.cf.clientIp`), so scripts/start.mjs puts a small
 *   front on the public port that overwrites CF-Connecting-IP with the connection's own address
 *   (scripts/client-address-front.mjs). Either way the header is the hop's, not the client's.
 * - CLIENT_ADDRESS_HEADER opts in to a proxy in front of the service: `CF-Connecting-IP` makes the
 *   npm start front pass a client-sent value through; `X-Forwarded-For` reads the last entry of
 *   that header (the one the nearest proxy appended; entries before it are the client's word).
 *
 * A value that is not an IP address literal counts as absent (null): callers key absent addresses
 * as "unknown" (src/throttle/address.ts), so garbage never becomes a fresh throttle key.
 */
export function clientAddress(req: Request, env: Bindings): string | null {
  const header = getConfig(env).clientAddressHeader;
  if (header === "x-forwarded-for") {
    const list = req.headers.get("x-forwarded-for");
    if (!list) return null;
    const entries = list.split(",");
    return ipLiteral(entries[entries.length - 1]);
  }
  return ipLiteral(req.headers.get("cf-connecting-ip"));
}

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const IPV6 = /^[0-9a-f:]{2,39}(?:(?<=:)(?:\d{1,3}\.){3}\d{1,3})?$/;

/** The address in canonical case, or null when the value is not an IPv4 or IPv6 literal. */
function ipLiteral(value: string | null | undefined): string | null {
  const v = (value ?? "").trim().toLowerCase();
  if (IPV4.test(v)) return v;
  if (v.includes(":") && IPV6.test(v) && (v.match(/::/g)?.length ?? 0) <= 1) return v;
  return null;
}
