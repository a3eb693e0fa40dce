import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createUser, passwordGrant, rootToken } from "./pages-support";
import { startService, type RunningServer } from "./server";

/**
 * DESIGN, "Changes that finish": a block of a user holding 120 grants (above D1's 100 bound
 * parameters) is killed mid-request with `kill -9 -- -<pgid>`; started again on the same
 * PERSIST_DIR, the retried block finishes it: no token works, the `user_blocked` audit row exists
 * once, and unblock revives nothing. Own server lifecycle (own port and state directory).
 */
const persist = mkdtempSync(path.join(tmpdir(), "edge-auth-crash-block-"));
const rootPassword = "crash-Block-Root-Password-7";
const GRANTS = 120;
let server: RunningServer | undefined;
afterAll(async () => {
  await server?.stop();
  rmSync(persist, { recursive: true, force: true });
});

const auth = (t: string) => ({ Authorization: `Bearer ${t}` });

async function tokenStatuses(base: string, tokens: string[]): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < tokens.length; i += 20) {
    out.push(...(await Promise.all(tokens.slice(i, i + 20).map(async (t) => (await fetch(`${base}/api/v4/user`, { headers: auth(t) })).status))));
  }
  return out;
}

describe("crash: a block killed mid-request is finished after a restart", () => {
  it("kill -9 of the process group during the block of a user with 120 grants; after restart the retry finishes it, and unblock revives nothing", async () => {
    server = await startService({ persistDir: persist, rootPassword });
    let base = server.baseURL;
    const root = await rootToken(base, rootPassword);
    const user = await createUser(base, root, "crashblock");
    const tokens: string[] = [];
    for (let i = 0; i < GRANTS; i += 10) {
      tokens.push(...(await Promise.all(Array.from({ length: Math.min(10, GRANTS - i) }, () => passwordGrant(base, user.username, user.password, "api")))));
    }
    expect(new Set(await tokenStatuses(base, tokens))).toEqual(new Set([200]));

    // The block starts; the moment its intent is committed (the state reads blocked) the whole group dies.
    const blocking = fetch(`${base}/api/v4/users/${user.id}/block`, { method: "POST", headers: auth(root) }).catch(() => null);
    const deadline = Date.now() + 30_000;
    for (;;) {
      const shown = (await (await fetch(`${base}/api/v4/users/${user.id}`, { headers: auth(root) })).json()) as { state: string };
      if (shown.state === "blocked") break;
      if (Date.now() > deadline) throw new Error("the block never committed its state");
    }
    await server.crash();
    await blocking;

    server = await startService({ persistDir: persist, rootPassword });
    base = server.baseURL;
    const root2 = await rootToken(base, rootPassword);
    const retry = await fetch(`${base}/api/v4/users/${user.id}/block`, { method: "POST", headers: auth(root2) });
    expect(retry.status).toBe(201);
    // true when the retry finished pending effects, null when the killed request had finished them.
    expect([true, null]).toContain(await retry.json());
    expect(new Set(await tokenStatuses(base, tokens))).toEqual(new Set([401]));

    const audit = (await (await fetch(`${base}/api/v4/audit_events?entity_type=User&entity_id=${user.id}&per_page=100`, { headers: auth(root2) })).json()) as {
      event_name: string;
    }[];
    expect(audit.filter((e) => e.event_name === "user_blocked")).toHaveLength(1);

    const unblock = await fetch(`${base}/api/v4/users/${user.id}/unblock`, { method: "POST", headers: auth(root2) });
    expect(unblock.status).toBe(201);
    expect(await unblock.json()).toBe(true);
    expect(new Set(await tokenStatuses(base, tokens))).toEqual(new Set([401]));
  });
});
