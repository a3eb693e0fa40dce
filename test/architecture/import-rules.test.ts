import { describe, expect, it } from "vitest";
import { allEdges, cycles, FILES, importsOf, type ImportEdge } from "./import-graph";
import { buildsQueries } from "./queries";

/**
 * docs/architecture.md, "Import rules": the layers of src/, lowest first. A module imports its own
 * layer or lower ones; a route family never reaches up into the app, the credentials layer never
 * into a route family, plain rules never into anything that knows about requests.
 */
const LAYERS: { name: string; paths: string[] }[] = [
  {
    name: "plain values and pure rules",
    paths: ["gen/", "domain/", "crypto/", "env.ts", "config-variables.ts", "versioning/catalogue.ts", "versioning/catalogue-entry.ts", "versioning/entries/", "versioning/version.ts", "versioning/state.ts"],
  },
  // The git origin's client (git/provisioning.ts and what it uses) is a storage service's client, as storage/ is.
  {
    name: "configuration, storage, HTTP helpers",
    paths: ["config.ts", "observability/", "http/", "db/", "storage/", "mail/", "git/provisioning.ts", "git/origin-client.ts", "git/origin-signature.ts"],
  },
  // http/gate.ts is the routes' adapter of the version gate (a request's version and headers), so it sits with the gate.
  { name: "credentials, throttle, Durable Objects, the version gate", paths: ["credentials/", "throttle/", "durable/", "versioning/", "http/gate.ts"] },
  { name: "use cases", paths: ["services/", "auth/", "accounts/"] },
  {
    name: "route families",
    paths: ["oauth/", "api/", "graphql/", "plugin/", "git/", "registry/", "web/", "bench/", "setup/", "scheduled.ts", "app-errors.ts"],
  },
  { name: "the app", paths: ["app.ts", "index.ts"] },
];

function layerOf(file: string): number {
  let best = -1;
  let bestLength = -1;
  LAYERS.forEach((layer, i) => {
    for (const p of layer.paths) if ((file === p || (p.endsWith("/") && file.startsWith(p))) && p.length > bestLength) [best, bestLength] = [i, p.length];
  });
  return best;
}

const ROUTE_FAMILIES = LAYERS.find((l) => l.name === "route families")!.paths;

/**
 * The upward imports that remain, `import type` included, each with its reason (at most 3; DESIGN,
 * Layout). A new one fails the test: move the rule down a layer instead.
 */
const ALLOWED_UPWARD: Record<string, string> = {
  // Types only: the per-request variables (c.var.principal, c.var.caller) are the credentials
  // layer's principals, and env.ts is where DESIGN's Layout puts the Variables type.
  "env.ts -> credentials/principal.ts": "the request's variables name the principal types",
};


const edges = allEdges();
const runtime = edges.filter((e) => !e.typeOnly);
const upward = (list: ImportEdge[]) => list.filter((e) => layerOf(e.to) > layerOf(e.from)).map((e) => `${e.from} -> ${e.to}`);
const inRouteFamily = (file: string) => ROUTE_FAMILIES.some((p) => file === p || (p.endsWith("/") && file.startsWith(p)));

describe("import rules (docs/architecture.md, Import rules)", () => {
  it("every module of src/ belongs to a layer", () => {
    expect(Object.keys(FILES).length).toBeGreaterThan(100);
    expect(Object.keys(FILES).filter((f) => layerOf(f) < 0)).toEqual([]);
  });

  it("no module imports a higher layer, type-only imports included, except the listed ones (at most 3, each still there)", () => {
    expect(Object.keys(ALLOWED_UPWARD).length).toBeLessThanOrEqual(3);
    const found = upward(edges);
    expect(found.filter((e) => !(e in ALLOWED_UPWARD))).toEqual([]);
    expect(Object.keys(ALLOWED_UPWARD).filter((e) => !found.includes(e))).toEqual([]);
  });

  it("the credentials layer imports no route family, type-only imports included (DESIGN, Credentials: one layer below every route family)", () => {
    const layer = Object.keys(FILES).filter((f) => f.startsWith("credentials/"));
    expect(layer.length).toBeGreaterThanOrEqual(8);
    const offenders = edges.filter((e) => e.from.startsWith("credentials/") && inRouteFamily(e.to)).map((e) => `${e.from} -> ${e.to}`);
    expect(offenders).toEqual([]);
  });

  it("no module below the routes imports Hono: use cases, storage and the rules take plain values (DESIGN, Layout; Conventions 1)", () => {
    const below = Object.entries(FILES).filter(([f]) => ["services/", "db/", "versioning/", "domain/"].some((p) => f.startsWith(p)));
    expect(below.length).toBeGreaterThan(20);
    expect(below.filter(([, source]) => /from\s+["']hono(?:\/[^"']*)?["']/.test(source)).map(([f]) => f)).toEqual([]);
  });

  it("no import cycle among the imports that run", () => {
    expect(cycles(runtime)).toEqual([]);
  });

  it("no import cycle through type-only imports either: erased at load, they still tie the modules together", () => {
    expect(cycles(edges)).toEqual([]);
  });

  it("no module outside src/db imports drizzle-orm or calls .prepare( (DESIGN, Layout: src/db is the only drizzle user)", () => {
    const outside = Object.entries(FILES).filter(([f]) => !f.startsWith("db/"));
    expect(outside.length).toBeGreaterThan(100);
    expect(outside.filter(([f, source]) => buildsQueries(source)).map(([f]) => f)).toEqual([]);
  });

  it("the walker sees an upward import and a cycle when there is one", () => {
    const files = { "domain/a.ts": 'import { b } from "../oauth/b";', "oauth/b.ts": 'import { a } from "../domain/a";\nimport type { C } from "./c";', "oauth/c.ts": "" };
    const made = Object.entries(files).flatMap(([f, s]) => importsOf(f, s, files));
    expect(upward(made)).toEqual(["domain/a.ts -> oauth/b.ts"]);
    expect(cycles(made.filter((e) => !e.typeOnly))).toEqual([["domain/a.ts", "oauth/b.ts"]]);
    expect(made.find((e) => e.to === "oauth/c.ts")?.typeOnly).toBe(true);
  });

  it("the walker sees a cycle and an upward import made of type-only imports", () => {
    const files = {
      "credentials/k.ts": 'import type { E } from "../oauth/errors";\nexport type { K } from "./kind";',
      "credentials/kind.ts": 'import { type K2 } from "./k";',
      "oauth/errors.ts": "",
    };
    const made = Object.entries(files).flatMap(([f, s]) => importsOf(f, s, files));
    expect(made.every((e) => e.typeOnly)).toBe(true);
    expect(cycles(made)).toEqual([["credentials/k.ts", "credentials/kind.ts"]]);
    expect(upward(made)).toEqual(["credentials/k.ts -> oauth/errors.ts"]);
    expect(made.filter((e) => inRouteFamily(e.to)).map((e) => e.from)).toEqual(["credentials/k.ts"]);
  });

  it("the query check sees a drizzle import and a prepared statement, and not their names in prose", () => {
    expect(buildsQueries('import { eq } from "drizzle-orm";')).toBe(true);
    expect(buildsQueries("import { sql } from 'drizzle-orm/sql';")).toBe(true);
    expect(buildsQueries('await env.DB.prepare("SELECT 1").first();')).toBe(true);
    expect(buildsQueries("await d1\n  .prepare(`DELETE FROM t`)\n  .run();")).toBe(true);
    expect(buildsQueries('import { getDb } from "../db/client";\n// drizzle-orm is used by src/db; call prepare there')).toBe(false);
  });
});
