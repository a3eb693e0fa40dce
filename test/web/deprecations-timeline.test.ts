import { describe, expect, it } from "vitest";
import { CATALOGUE } from "../../src/versioning/catalogue";
import { milestoneDate } from "../../src/versioning/version";
import { callAt } from "../helpers/versioned";

/**
 * The schedule as a picture (docs/deprecations.md): /help/deprecations shows a timeline from 14.0
 * to 16.0 with dates, the configured version marked, each change placed at its deprecation and at
 * its removal, and the table below it.
 */
async function stopsAt(version: string) {
  const html = await (await callAt(version, "/help/deprecations")).text();
  const start = html.indexOf('<ol class="timeline">');
  const end = html.indexOf("</ol>", start);
  expect(start).toBeGreaterThan(-1);
  // The table (its rows carry the entries' ids) comes after the timeline.
  expect(html.indexOf(`<tr id="${CATALOGUE[0].id}"`)).toBeGreaterThan(end);
  const timeline = html.slice(start, end);
  return timeline
    .split('<li class="stop ')
    .slice(1)
    .map((chunk) => ({
      kind: chunk.slice(0, chunk.indexOf('"')),
      version: /<strong>([^<]+)<\/strong>/.exec(chunk)![1],
      current: chunk.includes('aria-current="step"'),
      deprecated: [...(chunk.split("Removed")[0].split("Removal planned")[0].matchAll(/href="#([a-z0-9-]+)"/g))].map((m) => m[1]),
      removed: [...(chunk.split(/>Removed<|>Removal planned</)[1] ?? "").matchAll(/href="#([a-z0-9-]+)"/g)].map((m) => m[1]),
      text: chunk,
    }));
}

describe("/help/deprecations timeline", () => {
  it("runs from 14.0 to 16.0 in order, each stop dated, with a last stop for changes without a removal milestone", async () => {
    const stops = await stopsAt("14.10");
    const versions = stops.map((s) => s.version);
    expect(versions[0]).toBe("14.0");
    expect(versions).toContain("16.0");
    expect(versions.at(-1)).toBe("A later release");
    for (const s of stops.filter((x) => x.version !== "A later release")) expect(s.text).toContain(milestoneDate(s.version));
    expect(stops.find((s) => s.version === "15.0")!.text).toContain("2022-05-22");
    expect(stops.find((s) => s.version === "16.0")!.text).toContain("2023-04-22");
  });

  it("marks the configured version: 14.10 at 14.10 (earlier stops past, later ones future), 15.3 inserted as its own stop", async () => {
    const at1410 = await stopsAt("14.10");
    const current = at1410.filter((s) => s.current);
    expect(current.map((s) => s.version)).toEqual(["14.10"]);
    expect(current[0].text).toContain("This service (14.10)");
    expect(at1410.find((s) => s.version === "14.8")!.kind).toBe("past");
    expect(at1410.find((s) => s.version === "15.0")!.kind).toBe("future");
    const at153 = await stopsAt("15.3");
    expect(at153.filter((s) => s.current).map((s) => s.version)).toEqual(["15.3"]);
  });

  it("places every catalogue entry at its deprecation (14.0 for earlier ones) and at its removal", async () => {
    const stops = await stopsAt("16.0");
    const byVersion = new Map(stops.map((s) => [s.version, s]));
    for (const e of CATALOGUE) {
      const since = e.deprecatedIn === null || Number(e.deprecatedIn.split(".")[0]) < 14 ? "14.0" : e.deprecatedIn;
      expect(byVersion.get(since)!.deprecated, `${e.id} at its deprecation`).toContain(e.id);
      expect(byVersion.get(e.removedIn ?? "A later release")!.removed, `${e.id} at its removal`).toContain(e.id);
    }
    expect(byVersion.get("15.0")!.removed).toContain("runner-status-never-contacted");
    expect(byVersion.get("14.6")!.deprecated).toContain("runner-status-never-contacted");
  });
});
