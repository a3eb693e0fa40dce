import { describe, expect, it } from "vitest";
import { allEdges, FILES } from "./import-graph";

/**
 * docs/architecture.md, "The layers" and "Where each rule lives": the route families are parallel
 * (each parses its requests, mounts its door, calls services, renders in its shape), so none
 * reaches into another both ways; the pages reach the OAuth endpoints a browser is on only through
 * the page door; audit rows are written by services, never by a route; and a page is guarded by the
 * door it declares (src/web/door.ts), never by a path list or a guard added file by file
 * (test/web/page-door-sweep.test.ts checks the same at run time over app.routes).
 */
const FAMILIES = ["oauth", "api", "graphql", "plugin", "git", "registry", "web"] as const;
const familyOf = (file: string) => FAMILIES.find((f) => file.startsWith(`${f}/`)) ?? null;
const edges = allEdges();

/** Where a route-family file writes an audit row itself: the writers of src/db/audit.ts, or the table. */
const WRITES_AUDIT = /\b(recordAudit|auditStatement|recordQueuedAudits)\s*\(|insert\(\s*auditEvents\b/;

/** The guards a page would add by hand instead of declaring its door. */
const HAND_GUARD = /\b(requireCsrf|pageSecurityHeaders|requireUser|guardAdmin|guardProjectPage)\b/;
const DOOR_FILES = new Set(["web/door.ts", "web/security.ts"]);
/** The files that hold page routes: the pages and the two OAuth endpoints a browser is on. */
const isPageFile = (f: string) => f.startsWith("web/") || f === "oauth/authorize-routes.tsx" || f.startsWith("oauth/device/pages");

describe("route families (docs/architecture.md, The layers)", () => {
  it("the import graph sees every route family", () => {
    for (const f of FAMILIES) expect(Object.keys(FILES).some((file) => familyOf(file) === f), f).toBe(true);
  });

  it("no two route families import each other (oauth ↔ web, api ↔ plugin, or any other pair)", () => {
    const pairs = new Set(edges.map((e) => [familyOf(e.from), familyOf(e.to)]).filter(([a, b]) => a && b && a !== b).map(([a, b]) => `${a} -> ${b}`));
    const loops = [...pairs].filter((p) => {
      const [a, b] = p.split(" -> ");
      return a < b && pairs.has(`${b} -> ${a}`);
    });
    expect(pairs.size).toBeGreaterThan(3);
    expect(loops).toEqual([]);
  });

  it("src/oauth reaches the pages through one file, which imports the page door and nothing else of src/web", () => {
    const intoWeb = edges.filter((e) => e.from.startsWith("oauth/") && e.to.startsWith("web/")).map((e) => `${e.from} -> ${e.to}`);
    expect(intoWeb).toEqual(["oauth/page-door.ts -> web/door.ts"]);
  });

  it("no file under src/api, src/web, src/graphql, src/oauth, src/plugin, src/git or src/registry writes an audit row (services do)", () => {
    const writers = Object.entries(FILES)
      .filter(([file, source]) => familyOf(file) !== null && WRITES_AUDIT.test(source))
      .map(([file]) => file);
    expect(writers).toEqual([]);
  });

  it("every page is guarded by the door its sub-app declares: no page file builds its own guard or a bare Hono app", () => {
    const pageFiles = Object.entries(FILES).filter(([file]) => isPageFile(file) && !DOOR_FILES.has(file));
    expect(pageFiles.length).toBeGreaterThan(30);
    const handGuarded = pageFiles.filter(([, source]) => HAND_GUARD.test(source)).map(([file]) => file);
    expect(handGuarded).toEqual([]);
    // Only the files that join sub-apps make a Hono app of their own; a page sub-app is pageApp(door).
    const bareApps = pageFiles.filter(([, source]) => /new Hono\b/.test(source)).map(([file]) => file);
    expect(bareApps.sort()).toEqual(["web/pages/index.tsx", "web/routes.ts"]);
    const middleware = pageFiles.filter(([, source]) => /^\w+\.use\(/m.test(source)).map(([file]) => file);
    expect(middleware).toEqual([]);
  });
});
