import { describe, expect, it } from "vitest";
import { FILES } from "./import-graph";

/**
 * docs/architecture.md, "Access checks": whether a caller may do something to a project or group is
 * answered by the abilities table (src/domain/abilities.ts) through its one resolver
 * (src/services/abilities.ts), and by nothing else. Routes, pages, GraphQL, git and the registry
 * name abilities, never access levels; the access-parity test (test/services/access-parity.test.ts)
 * checks that every surface gives the table's answer.
 */

const ABILITIES_MODULE = ["domain/abilities.ts", "services/abilities.ts"];

/** The layers that may name access levels: the rules, the queries and the use cases. */
const LEVEL_LAYERS = /^(domain|db|services)\//;

/** Named access levels outside those layers, each with why. */
const LEVELS_ALLOWED: Record<string, string> = {
  "oauth/oidc/claims.ts": "the OpenID group claims (https://gitlab.org/claims/groups/owner ...) name the levels they list, not a decision",
};

/** What computing an access decision looks like: reading a level, comparing a level or a visibility, asking what a deploy token covers. */
const DECISION_SIGNS: { sign: string; pattern: RegExp }[] = [
  { sign: "reads an effective level", pattern: /\b(projectAccessLevel|groupAccessLevel|projectsWithAccessLevels)\(/ },
  { sign: "asks what a deploy token covers", pattern: /\bdeployTokenCovers\(/ },
  { sign: "compares a visibility", pattern: /visibility\s*[!=]==|["'](private|internal|public)["']\s*[!=]==/ },
  { sign: "compares an access level", pattern: /\b[lL]evel\s*[<>]=?\s*[\w.]|AccessLevel\.\w+\s*[<>]/ },
];

/**
 * Outside the abilities module, the places that may show those signs, each with why: the queries
 * (a level is a query; a listing's visibility filter is a query, which the parity test holds to
 * read_project), and the definition of a deploy token's cover.
 */
const DECISION_ALLOWED = (file: string) => file.startsWith("db/") || file in DECISION_PLACES;
const DECISION_PLACES: Record<string, string> = {
  "credentials/deploy-token.ts": "defines which projects a deploy token acts for (its project, or its group's projects)",
  "services/memberships.ts": "GitLab's rule on a grant (no level above one's own), given the level the resolver read",
};

describe("abilities: one table and one resolver decide project and group access", () => {
  it("no file outside src/domain, src/db and src/services names an access level (the OpenID group claims excepted)", () => {
    const naming = Object.entries(FILES)
      .filter(([file]) => !LEVEL_LAYERS.test(file) && !(file in LEVELS_ALLOWED))
      .filter(([, source]) => /AccessLevel\.|\b(OWNER|MAINTAINER|DEVELOPER|REPORTER)\b/.test(source))
      .map(([file]) => file);
    expect(naming).toEqual([]);
    for (const file of Object.keys(LEVELS_ALLOWED)) expect(FILES[file], `${file} is listed but gone`).toBeDefined();
  });

  it("no place outside the abilities module computes a project access decision", () => {
    const places = Object.entries(FILES)
      .filter(([file]) => !ABILITIES_MODULE.includes(file) && !DECISION_ALLOWED(file))
      .flatMap(([file, source]) => DECISION_SIGNS.filter((s) => s.pattern.test(source)).map((s) => `${file}: ${s.sign}`));
    expect(places).toEqual([]);
  });

  it("the abilities module is where the decision is: the resolver reads levels and the table compares them", () => {
    // A sign pattern that matched nothing anywhere would be a check that cannot fail.
    for (const { sign, pattern } of DECISION_SIGNS) {
      const where = [...ABILITIES_MODULE, "db/projects.ts", "db/namespace-listing.ts", "credentials/deploy-token.ts", "domain/abilities.ts"];
      expect(where.some((file) => pattern.test(FILES[file] ?? "")), sign).toBe(true);
    }
  });

  it("services that change a project or group take a checked one: no exported service function takes a plain project or group", () => {
    const plain = Object.entries(FILES)
      .filter(([file]) => file.startsWith("services/") && !ABILITIES_MODULE.includes(file) && !(file in UNCHECKED_ALLOWED))
      .flatMap(([file, source]) => [
        ...[...source.matchAll(EXPORTED_SIGNATURE)].filter((m) => PLAIN_SUBJECT.test(m[2]!)).map((m) => `${file}: ${m[1]}`),
        ...[...source.matchAll(EXPORTED_INPUT)].filter((m) => PLAIN_ID.test(m[2]!)).map((m) => `${file}: ${m[1]}`),
      ]);
    expect(plain).toEqual([]);
    for (const file of Object.keys(UNCHECKED_ALLOWED)) expect(FILES[file], `${file} is listed but gone`).toBeDefined();
    // The search must find plain subjects where they belong (the queries), or it could not fail.
    const queries = [...(FILES["db/runners.ts"] ?? "").matchAll(EXPORTED_SIGNATURE)].filter((m) => PLAIN_SUBJECT.test(m[2]!));
    expect(queries.length).toBeGreaterThan(0);
  });
});

/** An exported function's name and parameter list. */
const EXPORTED_SIGNATURE = /export\s+(?:async\s+)?function\s+(\w+)\s*(?:<[^>]*>)?\(([^)]*)\)/g;
/** An exported input shape's name and body (a use case's input object). */
const EXPORTED_INPUT = /export\s+interface\s+(\w+)[^{]*\{([^}]*)\}/g;
/** A field that names a project or group by its bare id or an unchecked row. */
const PLAIN_ID = /\b(projectId|groupId)\s*:\s*number\b|:\s*(ProjectRow|GroupRow)\b/;
/** A parameter that names a project or group without the brand the resolver gives a checked one. */
const PLAIN_SUBJECT = /\b(projectId|groupId)\s*:\s*number\b|:\s*(ProjectRow|GroupRow)\b/;
/** Service files whose functions take a plain project, each with why. */
const UNCHECKED_ALLOWED: Record<string, string> = {
  "services/changes/effects.ts": "finishes a project deletion destroyProject (CheckedProject<remove_project>) recorded",
  "services/changes/user-deletion.ts": "removes a deleted user's projects, a decision of the user's deletion, not of an ability",
};
