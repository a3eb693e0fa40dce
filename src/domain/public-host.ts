/**
 * Whether a URL's host is a public Internet address: the guard of every URL this server fetches
 * because someone handed it over (Client ID Metadata Documents, docs/agents.md). Table-driven:
 * an address is refused when it falls in any row of the IANA special-purpose registries
 * (./special-purpose-addresses.ts), and an IPv6 address outside global unicast (2000::/3) too; a
 * name is refused when it is a single label, has an empty label or more than one trailing dot, or
 * is or ends in one of LOCAL_NAMES (`localhost`, `*.localdomain`, `.local`, `.internal` ...).
 * The WHATWG URL parser has already normalised numeric forms (`0x7f.1`, `2130706433`) to dotted
 * quads and IPv6 to its compressed form, so those are caught by the address rules.
 */
import { IPV4_SPECIAL, IPV6_SPECIAL, LOCAL_NAMES, type SpecialRange } from "./special-purpose-addresses";

/** An IPv4 address as a number; null when not a dotted quad. */
function v4ToInt(ip: string): number | null {
  const parts = ip.split(".");
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255)) return null;
  return parts.reduce((n, p) => n * 256 + Number(p), 0);
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

function v6ToBigInt(ip: string): bigint | null {
  const groups = v6Groups(ip);
  return groups ? groups.reduce((n, g) => (n << 16n) | BigInt(g), 0n) : null;
}

/** An address of either family as a number, with its width; null when it is neither. */
function addressValue(ip: string): { value: bigint; width: 32 | 128 } | null {
  const v4 = v4ToInt(ip);
  if (v4 !== null) return { value: BigInt(v4), width: 32 };
  const v6 = v6ToBigInt(ip);
  return v6 === null ? null : { value: v6, width: 128 };
}

/** A CIDR row as [first, last] of its family's width, parsed once at load (a malformed row fails loudly). */
function rangeOf(cidr: string): { first: bigint; last: bigint; width: 32 | 128 } {
  const [base, bits] = cidr.split("/");
  const address = addressValue(base);
  if (!address) throw new Error(`special-purpose table: ${cidr} is malformed`);
  const size = 2n ** BigInt(address.width - Number(bits));
  return { first: address.value, last: address.value + size - 1n, width: address.width };
}

/** Narrowest first, so an address in two rows (255.255.255.255 is in 240.0.0.0/4) gets the more specific one. */
const RANGES = [...IPV4_SPECIAL, ...IPV6_SPECIAL].map((row) => ({ row, ...rangeOf(row.cidr) })).sort((a, b) => (a.last - a.first < b.last - b.first ? -1 : 1));
const IPV6_GLOBAL_UNICAST = rangeOf("2000::/3");

/** The most specific row of the special-purpose table an address (IPv4, or IPv6 without brackets) falls in; null when in none. */
export function specialRangeOf(ip: string): SpecialRange | null {
  const address = addressValue(ip);
  if (!address) return null;
  const { value, width } = address;
  return RANGES.find((r) => r.width === width && value >= r.first && value <= r.last)?.row ?? null;
}

export function isPublicIPv4(ip: string): boolean {
  return v4ToInt(ip) !== null && specialRangeOf(ip) === null;
}

/** Public: in global unicast (2000::/3) and in no row of the table. */
export function isPublicIPv6(ip: string): boolean {
  const v6 = v6ToBigInt(ip);
  if (v6 === null || v6 < IPV6_GLOBAL_UNICAST.first || v6 > IPV6_GLOBAL_UNICAST.last) return false;
  return specialRangeOf(ip) === null;
}

/** A DNS name that may name a public host: two labels or more, none empty, none of LOCAL_NAMES or under one. */
function isPublicName(name: string): boolean {
  const labels = name.split(".");
  if (labels.length < 2 || labels.some((l) => l === "")) return false;
  return !LOCAL_NAMES.some((local) => name === local || name.endsWith(`.${local}`));
}

/**
 * The host of a parsed URL (`hostname`: IPv6 in brackets) names a public address or a public DNS
 * name. One trailing dot (the root) is allowed on a name; two or more are an empty label.
 */
export function isPublicHost(hostname: string): boolean {
  const host = hostname.toLowerCase();
  if (host.startsWith("[") && host.endsWith("]")) return isPublicIPv6(host.slice(1, -1));
  const name = host.endsWith(".") ? host.slice(0, -1) : host;
  if (/^[\d.]+$/.test(name)) return isPublicIPv4(name);
  return isPublicName(name);
}

/** An http URL on a loopback address, the only non-public host development may allow. */
export function isLoopbackAddressUrl(url: URL): boolean {
  return url.protocol === "http:" && (url.hostname === "127.0.0.1" || url.hostname === "[::1]");
}
