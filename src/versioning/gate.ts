import { catalogueEntry } from "./catalogue";
import { stateAt } from "./state";
import { milestoneDate } from "./version";

// The pure rule lives beside the catalogue, so src/domain can ask it without the request layer.
export { stateAt, type ChangeState } from "./state";

/**
 * An entry's state at a version, remembered: both come from the code and the configuration, so the
 * answer never changes in an isolate, and a route asks on every request (token info, the token
 * endpoint). Bounded by the catalogue's size times the versions an isolate is configured with.
 */
const states = new Map<string, ReturnType<typeof stateAt>>();
function stateOf(id: string, version: string) {
  const key = `${id}\u0000${version}`;
  let state = states.get(key);
  if (state === undefined) states.set(key, (state = stateAt(catalogueEntry(id), version)));
  return state;
}

export function isRemoved(id: string, version: string): boolean {
  return stateOf(id, version) === "removed";
}

/** Deprecated but still served: the caller should mark its response with deprecationHeaders. */
export function isDeprecated(id: string, version: string): boolean {
  return stateOf(id, version) === "deprecated";
}

/**
 * The headers of an entry at an origin, remembered (pure: the catalogue and the origin); at most
 * HEADER_MEMO_LIMIT origins' worth, since the origin comes from the request's Host.
 */
const HEADER_MEMO_LIMIT = 256;
const headerMemo = new Map<string, Readonly<Record<string, string>>>();

/** RFC 9745 Deprecation, RFC 8594 Sunset and a Link to the catalogue entry. */
export function deprecationHeaders(id: string, origin: string): Record<string, string> {
  const key = `${id}\u0000${origin}`;
  let headers = headerMemo.get(key);
  if (!headers) {
    if (headerMemo.size >= HEADER_MEMO_LIMIT) headerMemo.clear();
    headerMemo.set(key, (headers = Object.freeze(buildDeprecationHeaders(id, origin))));
  }
  return { ...headers };
}

function buildDeprecationHeaders(id: string, origin: string): Record<string, string> {
  const entry = catalogueEntry(id);
  // RFC 9745 §2.1: the moment of deprecation as a structured-field Date (@seconds).
  const since = milestoneDate(entry.deprecatedIn ?? "14.0");
  const headers: Record<string, string> = {
    Deprecation: `@${Date.parse(`${since}T00:00:00Z`) / 1000}`,
    Link: `<${origin}/help/deprecations#${entry.id}>; rel="deprecation"; type="text/html"`,
  };
  if (entry.date) headers.Sunset = new Date(`${entry.date}T00:00:00Z`).toUTCString();
  return headers;
}

/**
 * The headers of a response that used several deprecated entries (REST and GraphQL alike): one
 * Link per entry, and the earliest Deprecation and the earliest Sunset of them all.
 */
export function combinedDeprecationHeaders(ids: Iterable<string>, origin: string): { Deprecation: string; Sunset: string | null; links: string[] } | null {
  let deprecation: string | null = null;
  let sunset: string | null = null;
  const links: string[] = [];
  for (const id of ids) {
    const h = deprecationHeaders(id, origin);
    links.push(h.Link);
    if (deprecation === null || Number(h.Deprecation.slice(1)) < Number(deprecation.slice(1))) deprecation = h.Deprecation;
    if (h.Sunset && (sunset === null || Date.parse(h.Sunset) < Date.parse(sunset))) sunset = h.Sunset;
  }
  return deprecation === null ? null : { Deprecation: deprecation, Sunset: sunset, links };
}

/**
 * Where markDeprecated writes: the response being built and the request's origin (for the Link).
 * The route layer passes one per request (src/http/gate.ts), so a response that uses several
 * deprecated things, or one many times, gets one header set.
 */
export interface DeprecationSink {
  origin: string;
  header(name: string, value: string, options?: { append?: boolean }): void;
}

const marked = new WeakMap<DeprecationSink, Set<string>>();

/** The gate at a service version; `sink` receives the headers of deprecated-but-served entries. */
export function gate(version: string, sink: DeprecationSink) {
  return {
    version,
    isRemoved: (id: string) => isRemoved(id, version),
    isDeprecated: (id: string) => isDeprecated(id, version),
    /** Marks the response when the entry is deprecated but served; returns whether it did. */
    markDeprecated(id: string): boolean {
      if (!isDeprecated(id, version)) return false;
      let seen = marked.get(sink);
      if (!seen) marked.set(sink, (seen = new Set()));
      if (seen.has(id)) return true;
      seen.add(id);
      sink.header("Link", deprecationHeaders(id, sink.origin).Link, { append: true });
      const combined = combinedDeprecationHeaders(seen, sink.origin)!;
      sink.header("Deprecation", combined.Deprecation);
      if (combined.Sunset) sink.header("Sunset", combined.Sunset);
      return true;
    },
  };
}
