import { describe, expect, it } from "vitest";
import { allEdges, cycles, FILES, importsOf, type ImportEdge } from "./import-graph";

/**
 * docs/architecture.md, "Import rules": the layers of src/, lowest first. A module imports its own
 * layer or lower ones; a route family never reaches up into the app, the credentials layer never
 * into a route family, plain rules never into anything that knows about requests.
 */
const LAYERS: { name: string; paths: string[] }[] = [
  {
    name: "plain values and pure rules",
    paths: ["gen/", "domain/", "crypto/", "env.ts", "config-variables.ts", "versioning/catalogue.ts", "versioning/entries/", "versioning/version.ts", "versioning/state.ts"],
  },
  // The git origin's client (git/provisioning.ts and what it uses) is a storage service's client, as storage/ is.
  {
    name: "configuration, storage, HTTP helpers",
    paths: ["config.ts", "observability/", "http/", "db/", "storage/", "git/provisioning.ts", "git/origin-client.ts", "git/origin-signature.ts"],
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

/**
 * The upward imports that remain, each with its reason (at most 3; DESIGN, Layout). A new one fails
 * the test: move the rule down a layer instead.
 */
const ALLOWED_UPWARD: Record<string, string> = {
  // The door counts a failed Basic login in the account-wide lockout, a use case of accounts.
  "credentials/front-door.ts -> services/accounts/lockout.ts": "failed logins count towards the lockout",
};

/**
 * Cycles through `import type` only: erased at compile time, so no module waits on another at
 * load, but they still tie the types together. None may be added; these are the known ones.
 */
const KNOWN_TYPE_CYCLES = 4;

const edges = allEdges();
const runtime = edges.filter((e) => !e.typeOnly);
const upward = (list: ImportEdge[]) => list.filter((e) => layerOf(e.to) > layerOf(e.from)).map((e) => `${e.from} -> ${e.to}`);

describe("import rules (docs/architecture.md, Import rules)", () => {
  it("every module of src/ belongs to a layer", () => {
    expect(Object.keys(FILES).length).toBeGreaterThan(100);
    expect(Object.keys(FILES).filter((f) => layerOf(f) < 0)).toEqual([]);
  });

  it("no module imports a higher layer, except the listed ones (at most 3)", () => {
    expect(Object.keys(ALLOWED_UPWARD).length).toBeLessThanOrEqual(3);
    expect(upward(runtime).filter((e) => !(e in ALLOWED_UPWARD))).toEqual([]);
  });

  it("no module below the routes imports Hono: use cases, storage and the rules take plain values (DESIGN, Layout; Conventions 1)", () => {
    const below = Object.entries(FILES).filter(([f]) => ["services/", "db/", "versioning/", "domain/"].some((p) => f.startsWith(p)));
    expect(below.length).toBeGreaterThan(20);
    expect(below.filter(([, source]) => /from\s+["']hono(?:\/[^"']*)?["']/.test(source)).map(([f]) => f)).toEqual([]);
  });

  it("no import cycle among the imports that run", () => {
    expect(cycles(runtime)).toEqual([]);
  });

  it("no new cycle through type-only imports", () => {
    expect(cycles(edges).length).toBeLessThanOrEqual(KNOWN_TYPE_CYCLES);
  });

  it("the walker sees an upward import and a cycle when there is one", () => {
    const files = { "domain/a.ts": 'import { b } from "../oauth/b";', "oauth/b.ts": 'import { a } from "../domain/a";\nimport type { C } from "./c";', "oauth/c.ts": "" };
    const made = Object.entries(files).flatMap(([f, s]) => importsOf(f, s, files));
    expect(upward(made)).toEqual(["domain/a.ts -> oauth/b.ts"]);
    expect(cycles(made.filter((e) => !e.typeOnly))).toEqual([["domain/a.ts", "oauth/b.ts"]]);
    expect(made.find((e) => e.to === "oauth/c.ts")?.typeOnly).toBe(true);
  });
});
