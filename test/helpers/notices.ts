import { expect } from "vitest";
import { catalogueEntry } from "../../src/versioning/catalogue";
import { milestoneDate } from "../../src/versioning/version";

/**
 * The deprecation notice an answer carries, worked out from the catalogue of announced changes
 * (src/versioning/catalogue.ts), never copied from it: RFC 9745 Deprecation is the moment of the
 * earliest deprecation among the entries the answer links (an entry deprecated "always" counts
 * from 14.0, the first version served), RFC 8594 Sunset the earliest removal date, none without one.
 */
const epochOf = (day: string) => Date.parse(`${day}T00:00:00Z`) / 1000;

/** The catalogue ids an answer links with rel="deprecation". */
export function linkedEntries(headers: Headers): string[] {
  const links = (headers.get("link") ?? "").split(/,(?=\s*<)/).filter((l) => /rel="deprecation"/.test(l));
  return links.map((l) => new URL(/<([^>]+)>/.exec(l)![1]).hash.slice(1));
}

export function noticeOf(ids: string[]): { deprecation: string; sunset: string | null } {
  const entries = ids.map(catalogueEntry);
  const since = Math.min(...entries.map((e) => epochOf(milestoneDate(e.deprecatedIn ?? "14.0"))));
  const dates = entries.map((e) => e.date).filter((d): d is string => d !== null).sort();
  return { deprecation: `@${since}`, sunset: dates.length ? new Date(`${dates[0]}T00:00:00Z`).toUTCString() : null };
}

/** The answer links `id` and its Deprecation and Sunset are the catalogue's for what it links. */
export function expectNotice(headers: Headers, id: string): void {
  const linked = linkedEntries(headers);
  expect(linked).toContain(id);
  expect({ deprecation: headers.get("deprecation"), sunset: headers.get("sunset") }).toEqual(noticeOf(linked));
}
