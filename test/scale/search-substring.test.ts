import { env } from "cloudflare:test";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { getDb } from "../../src/db/client";
import { createProject } from "../../src/db/namespaces";
import { mergeSearchIndexes } from "../../src/db/search-upkeep";
import { call, makeUserWithToken } from "../helpers/fixtures";
import { makeGroup } from "../helpers/resources";

/**
 * docs/scaling.md, "Search" (GitLab's Project.search through Gitlab::SQL::Pattern): whatever the
 * index does to be fast (one phrase over the column set for one word, segments merged by the
 * cron), `?search=` returns exactly the rows a plain substring filter over the names selects:
 * the query split on spaces, words of three characters or more each a case-insensitive
 * substring, all in the same column (name, path or description); with no such word, the whole
 * query equal to the name or path without regard to case; a blank query filters nothing. The
 * index follows creates, renames and deletes (the triggers of migration scale_search_fts).
 */
interface Named {
  id: number;
  name: string;
  path: string;
  description: string;
}

/** The plain filter the search must agree with, written from GitLab's rule, not from src/db/search.ts. */
function substringFilter(rows: Named[], query: string): number[] {
  const squished = query.trim().replace(/\s+/g, " ").toLowerCase();
  const words = squished.split(" ").filter((w) => w.length >= 3);
  const hit = (r: Named) => {
    if (words.length) return [r.name, r.path, r.description].some((col) => words.every((w) => col.toLowerCase().includes(w)));
    if (!squished) return true;
    return r.name.toLowerCase() === squished || r.path.toLowerCase() === squished;
  };
  return rows.filter(hit).map((r) => r.id).sort((a, b) => a - b);
}

let admin: { token: string; user: { id: number } };
beforeAll(async () => {
  admin = await makeUserWithToken({ isAdmin: true });
});

async function searched(groupId: number, query: string): Promise<number[]> {
  const res = await call(`/api/v4/groups/${groupId}/projects?per_page=100&search=${encodeURIComponent(query)}`, { token: admin.token });
  expect(res.status, query).toBe(200);
  return ((await res.json()) as { id: number }[]).map((p) => p.id).sort((a, b) => a - b);
}

// Few letters, so that random queries often match, and the case differs between names and queries.
const text = (chars: string[], max: number) => fc.array(fc.constantFrom(...chars), { minLength: 1, maxLength: max }).map((cs) => cs.join(""));
const name = text(["a", "b", "A", "B", " ", "-"], 10);
const slug = text(["a", "b"], 6);
const query = text(["a", "b", "A", "-", " "], 8);

describe("?search= of projects is the same set as a substring filter over the names", () => {
  it("random names, paths, descriptions and queries; after a rename, a delete and the cron's merge", async () => {
    const db = getDb(env.DB);
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ name, slug, description: fc.option(name, { nil: "" }) }), { minLength: 1, maxLength: 6 }),
        fc.array(query, { minLength: 1, maxLength: 4 }),
        name,
        fc.boolean(),
        async (specs, queries, renamed, merge) => {
          const group = await makeGroup(admin.user.id);
          const rows: Named[] = [];
          for (const [i, s] of specs.entries()) {
            const path = `${s.slug}${i}`;
            const p = await createProject(db, {
              name: s.name,
              path,
              namespace: { kind: "group", id: group.id, fullPath: group.fullPath },
              visibility: "private",
              description: s.description,
              creatorId: admin.user.id,
            });
            rows.push({ id: p.id, name: s.name, path, description: s.description });
          }
          // Queries taken from the rows too: a piece of one column, and two words from two columns
          // (which must not match: GitLab wants every word in the same column).
          const piece = (t: string, at: number) => t.slice(at % Math.max(1, t.length - 2), (at % Math.max(1, t.length - 2)) + 3);
          const derived = rows.flatMap((r, i) => [piece(r.name, i), `${piece(r.name, i)} ${piece(r.path, i)}`, `${piece(r.path, i + 1)} ${piece(r.description, i)}`]);
          for (const q of [...queries, ...derived]) expect(await searched(group.id, q), q).toEqual(substringFilter(rows, q));
          // A rename and a delete go through the same triggers as any write path.
          await env.DB.prepare("UPDATE projects SET name = ? WHERE id = ?").bind(renamed, rows[0].id).run();
          rows[0].name = renamed;
          if (rows.length > 1) {
            await env.DB.prepare("DELETE FROM projects WHERE id = ?").bind(rows[rows.length - 1].id).run();
            rows.pop();
          }
          if (merge) await mergeSearchIndexes(env.DB);
          for (const q of [...queries, ...derived, renamed]) expect(await searched(group.id, q), q).toEqual(substringFilter(rows, q));
        },
      ),
      { numRuns: 20, endOnFailure: true },
    );
  }, 240_000);
});
