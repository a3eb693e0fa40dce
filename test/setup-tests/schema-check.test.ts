import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import app from "../../src/app";
import { withVars } from "../../src/config";
import type { Bindings } from "../../src/env";
import { EXPECTED_MIGRATIONS, schemaState } from "../../src/setup/schema-check";

/**
 * docs/deploy.md, "Database": a Worker whose D1 migrations were not (all) applied answers every
 * route, /-/health included, with a 503 naming the command to run, never a bare 500; the check
 * runs once per isolate, not per request.
 */

/** A fresh env object (a new isolate's view: nothing remembered) whose D1 counts migration-table reads. */
function freshEnv(): { env: Bindings; migrationReads: () => number } {
  let reads = 0;
  const db = new Proxy(env.DB, {
    get(target, prop) {
      if (prop === "prepare") {
        return (q: string) => {
          if (q.includes("d1_migrations")) reads += 1;
          return target.prepare(q);
        };
      }
      const v = Reflect.get(target, prop, target);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
  return { env: withVars({ ...env, DB: db } as Bindings, {}), migrationReads: () => reads };
}

async function get(e: Bindings, path: string): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await app.fetch(new Request(`http://svc.test${path}`), e, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

describe("a database behind its migrations is refused with 503 and the command to run", () => {
  let saved: string[] = [];
  beforeEach(async () => {
    saved = [];
  });
  afterEach(async () => {
    // Put back whatever a test took away.
    if (saved.includes("*")) await env.DB.prepare("ALTER TABLE d1_migrations_hidden RENAME TO d1_migrations").run();
    for (const name of saved.filter((n) => n !== "*")) await env.DB.prepare("INSERT INTO d1_migrations (name) VALUES (?)").bind(name).run();
  });

  it("no migration applied at all: /-/health, the REST API, a page and OAuth discovery all answer 503 naming `npx wrangler d1 migrations apply`", async () => {
    await env.DB.prepare("ALTER TABLE d1_migrations RENAME TO d1_migrations_hidden").run();
    saved.push("*");
    const { env: e } = freshEnv();
    for (const path of ["/-/health", "/api/v4/version", "/users/sign_in", "/.well-known/openid-configuration"]) {
      const res = await get(e, path);
      expect(res.status, path).toBe(503);
      expect(res.headers.get("retry-after")).toBe("30");
      const body = await res.text();
      expect(body).toContain("behind its migrations");
      expect(body).toContain("npx wrangler d1 migrations apply DB --local");
      expect(body).toContain(EXPECTED_MIGRATIONS[0]);
    }
  });

  it("the newest migration missing: 503 naming it; once applied, served again without a redeploy", async () => {
    const newest = EXPECTED_MIGRATIONS[EXPECTED_MIGRATIONS.length - 1];
    await env.DB.prepare("DELETE FROM d1_migrations WHERE name = ?").bind(newest).run();
    saved.push(newest);
    const { env: e } = freshEnv();
    const res = await get(e, "/-/health");
    expect(res.status).toBe(503);
    const body = await res.text();
    expect(body).toContain(`Missing: ${newest}`);
    expect(body).not.toContain(EXPECTED_MIGRATIONS[0]);
    // The operator applies it; the isolate looks again once the recheck interval has passed.
    await env.DB.prepare("INSERT INTO d1_migrations (name) VALUES (?)").bind(newest).run();
    saved = [];
    expect((await schemaState(e, Date.now() + 11_000)).current).toBe(true);
    expect((await get(e, "/-/health")).status).toBe(200);
  });

  it("checked once per isolate: a current database is read once, then never again for 20 requests", async () => {
    const { env: e, migrationReads } = freshEnv();
    for (let i = 0; i < 20; i++) expect((await get(e, "/-/health")).status).toBe(200);
    expect(migrationReads()).toBe(1);
  });
});
