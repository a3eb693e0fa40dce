/**
 * The throttle key of a client address (the address itself comes from the one reader,
 * src/http/client-address.ts, which says where it is trusted from).
 * When it is unknown (requests made inside workerd, as the test suite does) every such request
 * shares the key "unknown", so the throttle still holds rather than being skipped.
 *
 * IPv6 clients usually hold a whole /64, so an IPv6 address counts by its /64 prefix; otherwise
 * one host could rotate through 2^64 addresses to escape the throttle.
 */
export function throttleKey(address: string | null | undefined): string {
  const a = (address ?? "").trim().toLowerCase();
  if (a === "") return "unknown";
  if (!a.includes(":")) return a;
  const prefix = ipv6Prefix64(a);
  return prefix ?? a;
}

function ipv6Prefix64(a: string): string | null {
  const [head, tail, ...rest] = a.split("::");
  if (rest.length > 0) return null;
  const left = head ? head.split(":") : [];
  const right = tail !== undefined && tail !== "" ? tail.split(":") : [];
  // An embedded IPv4 tail (::ffff:1.2.3.4) is two groups.
  if (right.length > 0 && right[right.length - 1].includes(".")) right.splice(right.length - 1, 1, "0", "0");
  if (left.length > 0 && left[left.length - 1].includes(".")) left.splice(left.length - 1, 1, "0", "0");
  const missing = tail === undefined ? 0 : 8 - left.length - right.length;
  if (missing < 0) return null;
  const groups = [...left, ...Array<string>(missing).fill("0"), ...right];
  if (groups.length !== 8 || !groups.every((g) => /^[0-9a-f]{1,4}$/.test(g))) return null;
  return `${groups.slice(0, 4).map((g) => g.replace(/^0+(?=.)/, "")).join(":")}::/64`;
}
