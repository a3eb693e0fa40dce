/**
 * Whether a URL's host is a public Internet address: the guard of every URL this server fetches
 * because someone handed it over (Client ID Metadata Documents, docs/agents.md). Private,
 * loopback, link-local, shared, documentation, multicast and reserved ranges are refused, as are
 * names that only resolve inside a network (`localhost`, `.local`, `.internal`, single labels).
 * The WHATWG URL parser has already normalised numeric forms (`0x7f.1`, `2130706433`) to dotted
 * quads, so those are caught by the address rules.
 */

/** [first address, prefix length] of the IPv4 ranges that are not public (RFC 6890 and successors). */
const V4_BLOCKED: ReadonlyArray<[string, number]> = [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.88.99.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
];

const LOCAL_SUFFIXES = [".localhost", ".local", ".internal", ".home.arpa", ".lan", ".intranet", ".corp"];

function v4ToInt(ip: string): number | null {
  const parts = ip.split(".");
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255)) return null;
  return parts.reduce((n, p) => n * 256 + Number(p), 0);
}

export function isPublicIPv4(ip: string): boolean {
  const n = v4ToInt(ip);
  if (n === null) return false;
  return !V4_BLOCKED.some(([base, bits]) => {
    const size = 2 ** (32 - bits);
    const start = v4ToInt(base)!;
    return n >= start && n < start + size;
  });
}

/** Expands an IPv6 address (without brackets) to eight 16-bit groups; null when malformed. */
function v6Groups(ip: string): number[] | null {
  let text = ip.toLowerCase();
  // An embedded dotted quad (::ffff:1.2.3.4) is written as its two groups first.
  const quad = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (quad) {
    const n = v4ToInt(quad[1]);
    if (n === null) return null;
    text = `${text.slice(0, -quad[1].length)}${Math.floor(n / 65536).toString(16)}:${(n % 65536).toString(16)}`;
  }
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const parse = (s: string) => (s === "" ? [] : s.split(":").map((g) => (/^[0-9a-f]{1,4}$/.test(g) ? parseInt(g, 16) : NaN)));
  const head = parse(halves[0]);
  const rest = halves.length === 2 ? parse(halves[1]) : [];
  if (halves.length === 1 ? head.length !== 8 : head.length + rest.length > 7) return null;
  const groups = [...head, ...Array(8 - head.length - rest.length).fill(0), ...rest];
  return groups.some((g) => Number.isNaN(g)) ? null : groups;
}

export function isPublicIPv6(ip: string): boolean {
  const g = v6Groups(ip);
  if (!g) return false;
  const embeddedV4 = () => `${g[6] >> 8}.${g[6] & 255}.${g[7] >> 8}.${g[7] & 255}`;
  if (g.slice(0, 7).every((x) => x === 0)) return false; // :: and ::1
  if (g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff) return isPublicIPv4(embeddedV4()); // IPv4-mapped
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return isPublicIPv4(embeddedV4()); // NAT64
  if ((g[0] & 0xfe00) === 0xfc00) return false; // unique local fc00::/7
  if ((g[0] & 0xffc0) === 0xfe80) return false; // link-local fe80::/10
  if ((g[0] & 0xffc0) === 0xfec0) return false; // site-local (deprecated) fec0::/10
  if ((g[0] & 0xff00) === 0xff00) return false; // multicast
  if (g[0] === 0x2001 && g[1] === 0x0db8) return false; // documentation
  if (g[0] === 0x2002) return isPublicIPv4(`${g[1] >> 8}.${g[1] & 255}.${g[2] >> 8}.${g[2] & 255}`); // 6to4
  return true;
}

/** The host of a parsed URL (`hostname`: IPv6 in brackets) names a public address or a public DNS name. */
export function isPublicHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, "");
  if (host.startsWith("[") && host.endsWith("]")) return isPublicIPv6(host.slice(1, -1));
  if (/^[\d.]+$/.test(host)) return isPublicIPv4(host);
  if (host === "localhost" || !host.includes(".")) return false;
  return !LOCAL_SUFFIXES.some((s) => host.endsWith(s));
}

/** An http URL on a loopback address, the only non-public host development may allow. */
export function isLoopbackAddressUrl(url: URL): boolean {
  return url.protocol === "http:" && (url.hostname === "127.0.0.1" || url.hostname === "[::1]");
}
