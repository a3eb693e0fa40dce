import type { Context } from "hono";
import { getConfig } from "../config";
import type { AppEnv } from "../env";
import { catalogueEntry, type CatalogueEntry } from "./catalogue";
import { atLeast, milestoneDate } from "./version";

export type ChangeState = "announced" | "deprecated" | "removed";

export function stateAt(entry: CatalogueEntry, version: string): ChangeState {
  if (entry.removedIn && atLeast(version, entry.removedIn)) return "removed";
  if (entry.deprecatedIn === null || atLeast(version, entry.deprecatedIn)) return "deprecated";
  return "announced";
}

export function isRemoved(id: string, version: string): boolean {
  return stateAt(catalogueEntry(id), version) === "removed";
}

/** Deprecated but still served: the caller should mark its response with deprecationHeaders. */
export function isDeprecated(id: string, version: string): boolean {
  return stateAt(catalogueEntry(id), version) === "deprecated";
}

/** RFC 9745 Deprecation, RFC 8594 Sunset and a Link to the catalogue entry. */
export function deprecationHeaders(id: string, origin: string): Record<string, string> {
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

const marked = new WeakMap<object, { ids: Set<string>; deprecation: number; sunset: number }>();

/** The gate as seen from a request: the configured version and the request's origin. */
export function gate(c: Context<AppEnv>) {
  const version = getConfig(c.env).serviceVersion;
  return {
    version,
    isRemoved: (id: string) => isRemoved(id, version),
    isDeprecated: (id: string) => isDeprecated(id, version),
    /** Marks the response when the entry is deprecated but served; returns whether it did. */
    markDeprecated(id: string): boolean {
      if (!isDeprecated(id, version)) return false;
      // A response may use several deprecated things (or one many times, per list item): one
      // Link per entry, and the earliest Deprecation and Sunset of them all.
      let seen = marked.get(c);
      if (!seen) marked.set(c, (seen = { ids: new Set(), deprecation: Infinity, sunset: Infinity }));
      if (seen.ids.has(id)) return true;
      seen.ids.add(id);
      const h = deprecationHeaders(id, new URL(c.req.url).origin);
      c.header("Link", h.Link, { append: true });
      const since = Number(h.Deprecation.slice(1));
      if (since < seen.deprecation) c.header("Deprecation", h.Deprecation);
      seen.deprecation = Math.min(seen.deprecation, since);
      if (h.Sunset) {
        const sunset = Date.parse(h.Sunset);
        if (sunset < seen.sunset) c.header("Sunset", h.Sunset);
        seen.sunset = Math.min(seen.sunset, sunset);
      }
      return true;
    },
  };
}
