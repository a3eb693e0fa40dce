import { describe, expect, it } from "vitest";
import { FILES } from "./import-graph";

/**
 * DESIGN, "Changes that finish": no statement binds more parameters than D1 allows (100). Every
 * `inArray(column, list)` and every `IN (` in src/db binds either a subquery, a slice of
 * `batchesOf`/`selectInBatches` (src/db/batches.ts), or one parameter (`inIdList`, a JSON array
 * read by json_each). What is left must be bounded by construction and say why below.
 */
const BOUNDED_BY_CONSTRUCTION: { file: string; argument: string; reason: string }[] = [
  { file: "db/user-accounts.ts", argument: "from", reason: "the states a transition starts from: at most the three account states" },
  { file: "db/runner-filters.ts", argument: "[...c.types]", reason: "runner types: a list of the three runner types, parsed from an enum" },
  { file: "db/audit.ts", argument: "actionPlaceholders", reason: "audit actions a listing filters on, one placeholder each: constants of the caller, a handful" },
  { file: "db/projects.ts", argument: "ids", reason: "a subquery (an SQL expression, not a list): one statement whatever the number of projects" },
  { file: "db/grant-holder.ts", argument: "GRANT_ENDING_KINDS", reason: "the kinds of change that end grants: a constant list of six" },
  { file: "db/projects.ts", argument: "lowerPaths", reason: "the path prefixes of one registry name: at most MAX_IMAGE_DEPTH + 1 (src/registry/names.ts)" },
];

/** The argument text after the first top-level comma of a call that starts at `open` (the index of its "("). */
function secondArgument(source: string, open: number): string {
  let depth = 0;
  let start = -1;
  for (let i = open; i < source.length; i++) {
    const ch = source[i];
    if (ch === "(" || ch === "[" || ch === "{") depth++;
    else if (ch === ")" || ch === "]" || ch === "}") {
      depth--;
      if (depth === 0) return source.slice(start, i).trim();
    } else if (ch === "," && depth === 1 && start === -1) start = i + 1;
  }
  return "";
}

/** Names a `for (const X of batchesOf(...))` loop or a `selectInBatches(..., (X) =>` callback binds in the file. */
function batchSlices(source: string): Set<string> {
  const names = new Set<string>();
  for (const m of source.matchAll(/for \(const (\w+) of batchesOf\(/g)) names.add(m[1]);
  for (const m of source.matchAll(/selectInBatches\([^,]+,\s*(?:async\s*)?\(?(\w+)\)?\s*=>/g)) names.add(m[1]);
  return names;
}

/** `inArray(column, x)` where x is a drizzle select, an SQL subquery or a helper call that builds one. */
const isSubquery = (argument: string) => /^(db|tx)\.select\(/.test(argument) || argument.startsWith("sql`(SELECT") || /^\w+\([^)]*\)$/.test(argument);

function unboundedInArrays(file: string, source: string): string[] {
  const slices = batchSlices(source);
  const found: string[] = [];
  for (const m of source.matchAll(/\binArray\(/g)) {
    const argument = secondArgument(source, m.index + "inArray".length);
    if (slices.has(argument) || isSubquery(argument)) continue;
    if (BOUNDED_BY_CONSTRUCTION.some((b) => b.file === file && b.argument === argument)) continue;
    found.push(`${file}: inArray(…, ${argument})`);
  }
  return found;
}

/** The source without its comments (which may say "IN (...)" in prose). */
const code = (source: string) => source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");

/** `const name = sql...SELECT` (or a sql.join of SELECTs): an interpolated subquery. */
function subqueryNames(source: string): Set<string> {
  const names = new Set<string>();
  for (const m of source.matchAll(/const (\w+) = (sql`\s*SELECT|sql\.join\(\s*[\w.]+\.map\(\([^)]*\) => sql`SELECT)/g)) names.add(m[1]);
  return names;
}

/** `IN (` followed by anything but a subquery or a literal list is a list built in code. */
function unboundedInLists(file: string, source: string): string[] {
  const text = code(source);
  const subqueries = subqueryNames(text);
  const found: string[] = [];
  for (const m of text.matchAll(/\bIN \(\s*([^\s)]*)/g)) {
    const next = m[1];
    if (/^SELECT\b/i.test(next) || /^'/.test(next)) continue;
    const interpolated = /^\$\{(\w+)\}$/.exec(next);
    if (interpolated && subqueries.has(interpolated[1])) continue;
    found.push(`${file}: IN (${next}`);
  }
  return found;
}

const DB_FILES = Object.entries(FILES).filter(([f]) => f.startsWith("db/") && !f.startsWith("db/schema/"));

describe("DESIGN Changes that finish: bounded statements (D1 binds at most 100 parameters a statement)", () => {
  it("every inArray in src/db binds a batch slice, a subquery or a list bounded by construction", () => {
    expect(DB_FILES.length).toBeGreaterThan(20);
    expect(DB_FILES.flatMap(([f, s]) => unboundedInArrays(f, s))).toEqual([]);
  });

  it("every IN ( in src/db's SQL holds a subquery or a literal list", () => {
    expect(DB_FILES.flatMap(([f, s]) => unboundedInLists(f, s))).toEqual([]);
  });

  it("each allowance for a list bounded by construction still names a call in its file", () => {
    for (const b of BOUNDED_BY_CONSTRUCTION) {
      const source = FILES[b.file];
      expect(source, b.file).toBeDefined();
      const args = [...source.matchAll(/\binArray\(/g)].map((m) => secondArgument(source, m.index + "inArray".length));
      expect(args, `${b.file}: ${b.argument}`).toContain(b.argument);
    }
  });

  it("the check finds an unbounded list: markFamilies as it was binds one parameter per family id", () => {
    const before = "await db.update(t).set(x).where(and(inArray(oauthTokenFamilies.id, ids), ne(t.status, 'revoked')));";
    expect(unboundedInArrays("db/oauth-grants.ts", before)).toEqual(["db/oauth-grants.ts: inArray(…, ids)"]);
    expect(unboundedInLists("db/x.ts", "sql`${runners.id} IN (${sql.join(ids)})`")).toHaveLength(1);
    expect(unboundedInArrays("db/x.ts", "for (const slice of batchesOf(ids)) await db.delete(t).where(inArray(t.id, slice));")).toEqual([]);
  });
});
