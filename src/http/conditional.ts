/**
 * Conditional GET and HEAD (RFC 9110 §13.1.2, If-None-Match): whether the client's copy, named by
 * its entity tags, is the current representation. If-None-Match uses the weak comparison
 * (§8.8.3.2): W/"x" matches "x". `*` matches any current representation.
 */
export function ifNoneMatchHits(header: string | null | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === "*") return true;
  const opaque = (t: string) => t.trim().replace(/^W\//, "");
  const mine = opaque(etag);
  // Entity tags are quoted and hold no comma or quote (RFC 9110 §8.8.3), so splitting on commas is exact.
  return header.split(",").some((t) => opaque(t) === mine);
}
