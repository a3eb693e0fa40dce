import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { getDb } from "../../src/db/client";
import { createGroup, createProject } from "../../src/db/namespaces";
import { findGroup, findProject } from "../../src/db/projects";
import { findUserByLogin, findUserByUsername, takenFields } from "../../src/db/users";
import { resolveRepositoryName } from "../../src/registry/names";
import { makeUser, unique } from "../helpers/fixtures";

/**
 * Lookups by path, username and email go through indexes (DESIGN.md "Namespaces"; docs/scaling.md):
 * the statements the real repository functions send to D1 are recorded and each one's
 * EXPLAIN QUERY PLAN, asked of the real D1 binding, must not SCAN users, groups or projects.
 */
interface Recorded {
  sql: string;
  params: unknown[];
}

/** The real D1 binding; every statement prepared through it is recorded with its parameters. */
function recordingD1(): { d1: D1Database; statements: Recorded[] } {
  const statements: Recorded[] = [];
  const d1 = new Proxy(env.DB, {
    get(target, prop) {
      if (prop === "prepare") {
        return (sql: string) => {
          const rec: Recorded = { sql, params: [] };
          statements.push(rec);
          const stmt = target.prepare(sql);
          const bind = stmt.bind.bind(stmt);
          // The statement stays D1's own object (batch() needs it); only bind is observed.
          stmt.bind = (...params: unknown[]) => {
            rec.params = params;
            return bind(...params);
          };
          return stmt;
        };
      }
      const v = Reflect.get(target, prop, target);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
  return { d1, statements };
}

async function plansOf(lookup: (db: ReturnType<typeof getDb>) => Promise<unknown>): Promise<string[][]> {
  const { d1, statements } = recordingD1();
  await lookup(getDb(d1));
  expect(statements.length).toBeGreaterThan(0);
  const plans: string[][] = [];
  for (const s of statements) {
    const { results } = await env.DB.prepare(`EXPLAIN QUERY PLAN ${s.sql}`)
      .bind(...s.params)
      .all<{ detail: string }>();
    plans.push(results.map((r) => r.detail));
  }
  return plans;
}

const FULL_SCAN = /^SCAN (users|groups|projects)\b/;

function expectIndexed(plans: string[][], index: RegExp) {
  for (const plan of plans) {
    expect(plan.filter((d) => FULL_SCAN.test(d))).toEqual([]);
    expect(plan.some((d) => /^SEARCH /.test(d) && index.test(d))).toBe(true);
  }
}

const db = getDb(env.DB);
const user = await makeUser();
const group = await createGroup(db, { name: "G", path: unique("Plan"), parent: null, visibility: "private", description: "", ownerId: user.id });
const project = await createProject(db, {
  name: "App",
  path: "App",
  namespace: { kind: "group", id: group.id, fullPath: group.fullPath },
  visibility: "private",
  description: "",
  creatorId: user.id,
});

describe("lookups by path, username and email use the unique indexes on lower(...), never a scan", () => {
  it("GET /projects/:path (findProject by path_with_namespace, any case)", async () => {
    const plans = await plansOf(async (d) => expect((await findProject(d, project.pathWithNamespace.toUpperCase()))?.id).toBe(project.id));
    expectIndexed(plans, /projects_path_with_namespace_lower_idx/);
  });

  it("GET /groups/:path (findGroup by full_path, any case)", async () => {
    const plans = await plansOf(async (d) => expect((await findGroup(d, group.fullPath.toLowerCase()))?.id).toBe(group.id));
    expectIndexed(plans, /groups_full_path_lower_idx/);
  });

  it("password sign-in by username or by email (findUserByLogin) and Sudo by username", async () => {
    const byName = await plansOf(async (d) => expect((await findUserByLogin(d, user.username.toUpperCase()))?.id).toBe(user.id));
    const byEmail = await plansOf(async (d) => expect((await findUserByLogin(d, user.email.toUpperCase()))?.id).toBe(user.id));
    for (const plans of [byName, byEmail]) {
      expect(plans.flat().filter((d) => FULL_SCAN.test(d))).toEqual([]);
      expect(plans.flat().some((d) => /users_username_lower_idx/.test(d))).toBe(true);
      expect(plans.flat().some((d) => /users_email_lower_idx/.test(d))).toBe(true);
    }
    expectIndexed(await plansOf((d) => findUserByUsername(d, user.username)), /users_username_lower_idx/);
  });

  it("the users API's taken check (username as a user's or a group's path, email)", async () => {
    const plans = await plansOf((d) => takenFields(d, user.username, user.email));
    expect(plans.flat().filter((d) => FULL_SCAN.test(d))).toEqual([]);
    expect(plans.flat().filter((d) => /_lower_idx/.test(d)).length).toBe(3);
  });

  it("registry names (and /jwt/auth scopes) resolve their project prefixes through the index", async () => {
    const name = `${project.pathWithNamespace.toLowerCase()}/backend`;
    const plans = await plansOf(async (d) => expect((await resolveRepositoryName(d, name))?.project.id).toBe(project.id));
    expectIndexed(plans, /projects_path_with_namespace_lower_idx/);
  });
});
