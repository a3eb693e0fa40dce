/// <reference types="vite/client" />
import { describe, expect, it } from "vitest";
import { SCHEDULE_VERSIONS } from "../../src/config-variables";
import { CATALOGUE } from "../../src/versioning/catalogue";
import { stateAt } from "../../src/versioning/gate";
import { compareVersions } from "../../src/versioning/version";
import { callAt } from "../helpers/versioned";

/**
 * The schedule as data (issue 5, "The schedule as data"; DESIGN, Service versions): every entry is
 * complete and valid, and every entry that changes an API answer is exercised by a test named
 * after its id (on each side of its milestone).
 */
const milestone = /^\d+\.\d+$/;
const date = /^\d{4}-\d{2}-\d{2}$/;

// Every test source of the workers and e2e projects, as text (Vite's ?raw import).
const sources = import.meta.glob(["../**/*.test.ts", "../**/*.test.tsx"], { query: "?raw", import: "default", eager: true }) as Record<string, string>;

describe("SERVICE_VERSION accepts the versions of the schedule and no other", () => {
  it("every removal milestone and every deprecation from 13.0 on is a version SERVICE_VERSION accepts; 16.0, the newest, is the last", () => {
    const sorted = [...SCHEDULE_VERSIONS].sort(compareVersions);
    expect(sorted[0]).toBe("13.0");
    expect(sorted.at(-1)).toBe("16.0");
    const removals = CATALOGUE.map((e) => e.removedIn).filter((m): m is string => m !== null);
    expect(removals.filter((m) => !SCHEDULE_VERSIONS.includes(m))).toEqual([]);
    // A deprecation announced before 13.0 (CI_BUILD_* in 9.0) changes nothing served before its removal.
    const deprecations = CATALOGUE.map((e) => e.deprecatedIn).filter((m): m is string => m !== null && compareVersions(m, "13.0") >= 0);
    expect(deprecations.filter((m) => !SCHEDULE_VERSIONS.includes(m))).toEqual([]);
  });
});

describe("catalogue entries: complete and valid", () => {
  it.each(CATALOGUE.map((e) => [e.id, e] as const))("%s has every field with a valid milestone", (_id, e) => {
    expect(e.id).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
    expect(["oauth", "rest", "graphql", "ci", "report", "configuration", "operations", "authentication", "events"]).toContain(e.interface);
    expect(e.title.length).toBeGreaterThan(3);
    expect(e.change.length).toBeGreaterThan(3);
    if (e.deprecatedIn !== null) expect(e.deprecatedIn).toMatch(milestone);
    if (e.removedIn !== null) {
      expect(e.removedIn).toMatch(milestone);
      if (e.deprecatedIn !== null) expect(compareVersions(e.deprecatedIn, e.removedIn)).toBeLessThan(0);
    }
    if (e.date !== null) expect(e.date).toMatch(date);
    if (e.removedIn !== null) expect(e.date).not.toBeNull();
    expect(e.replacement === null || e.replacement.length > 0).toBe(true);
    expect(typeof e.affectsApi).toBe("boolean");
  });
  it("ids are unique", () => {
    expect(new Set(CATALOGUE.map((e) => e.id)).size).toBe(CATALOGUE.length);
  });
  it("holds the ids other parts of the service depend on", () => {
    const ids = CATALOGUE.map((e) => e.id);
    for (const id of [
      "security-report-min-schema-version",
      "ci-job-name-length",
      "ci-keyword-types",
      "ci-cobertura-report",
      "ci-build-variables",
      "secret-detection-variables",
      "ds-excluded-analyzers",
      "runner-active-field",
      "dependency-proxy-private-groups-flag",
      "pat-ssh-expiry-enforcement",
      "kerberos-password-login",
      "ci-job-jwt-v2",
      "audit-events-repository-push",
      "certificate-based-clusters",
    ]) {
      expect(ids).toContain(id);
    }
  });
  it("the security report minimum is a warning from 14.10 and not processed from 15.0 (spec, Errors)", () => {
    const e = CATALOGUE.find((x) => x.id === "security-report-min-schema-version")!;
    expect([stateAt(e, "14.9"), stateAt(e, "14.10"), stateAt(e, "15.0")]).toEqual(["announced", "deprecated", "removed"]);
  });
});

describe("every API-affecting entry is exercised by a test named after its id", () => {
  const text = Object.entries(sources)
    .filter(([path]) => !path.endsWith("versioning/catalogue.test.ts"))
    .map(([path, src]) => `${path}\n${src}`)
    .join("\n");
  it.each(CATALOGUE.filter((e) => e.affectsApi).map((e) => [e.id] as const))("%s", (id) => {
    // A describe/it title or a file name must carry the id, not just any mention.
    const named = new RegExp(`(describe|it|test)(\\.each\\([^)]*\\))?\\(\\s*["'\`][^"'\`]*\\b${id}\\b|/${id}\\.test\\.tsx?`);
    expect(named.test(text), `no test is named after ${id}`).toBe(true);
  });
});

describe("GET /api/v4/deprecations: each entry's state at the configured version", () => {
  it("runner-status-never-contacted is deprecated at 14.10 and removed at 15.0; runner-active-field announced at 14.7", async () => {
    const at = async (v: string) => {
      const res = await callAt(v, "/api/v4/deprecations");
      expect(res.status).toBe(200);
      const j = (await res.json()) as { service_version: string; entries: { id: string; state: string }[] };
      expect(j.service_version).toBe(v);
      expect(j.entries.length).toBe(CATALOGUE.length);
      return new Map(j.entries.map((e) => [e.id, e.state]));
    };
    expect((await at("14.10")).get("runner-status-never-contacted")).toBe("deprecated");
    expect((await at("15.0")).get("runner-status-never-contacted")).toBe("removed");
    expect((await at("14.7")).get("runner-active-field")).toBe("announced");
  });
});
