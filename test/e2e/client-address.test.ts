import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiCall, rootToken } from "./pages-support";
import { startService, type RunningServer } from "./server";
import { until } from "./wait";

/**
 * DESIGN.md "Client address": under `npm start` the client address is the connection's own; a
 * client-sent CF-Connecting-IP (or X-Forwarded-For) is not the address any throttle, lockout or
 * audit row uses. A server of its own, with a small address throttle, so the ban it provokes
 * reaches no other test.
 */
const ROOT_PASSWORD = "client-Address-Root-Password-5";
let server: RunningServer;
let persist = "";
let base = "";
let token = "";

beforeAll(async () => {
  persist = mkdtempSync(path.join(tmpdir(), "edge-auth-client-address-"));
  server = await startService({
    persistDir: persist,
    rootPassword: ROOT_PASSWORD,
    vars: { THROTTLE_FAILED_AUTH_LIMIT: "3", THROTTLE_FAILED_AUTH_WINDOW_SECONDS: "60", THROTTLE_FAILED_AUTH_BAN_SECONDS: "4", SEED_DEMO_DATA: "false" },
  });
  base = server.baseURL;
  token = await rootToken(base, ROOT_PASSWORD);
}, 300_000);

afterAll(async () => {
  await server?.stop();
  rmSync(persist, { recursive: true, force: true });
});

const FORGED = ["198.51.100.11", "198.51.100.12", "198.51.100.13", "198.51.100.14"];

/** A wrong password for root, claiming to come from `forged` in both headers a proxy would set. */
const wrongPassword = (forged: string) =>
  fetch(`${base}/oauth/token`, {
    method: "POST",
    headers: { "CF-Connecting-IP": forged, "X-Forwarded-For": forged },
    body: new URLSearchParams({ grant_type: "password", username: "root", password: "not-the-root-password" }),
  });

describe("under npm start the client address is the connection's own (DESIGN.md, Client address)", () => {
  it("a client-sent CF-Connecting-IP neither escapes a ban, nor bans the address it names, nor lands in the audit log", async () => {
    // Each failure claims another address; all of them count for the one connection.
    for (const forged of FORGED.slice(0, 3)) expect((await wrongPassword(forged)).status).toBe(400);
    // The third failure started the ban: a fresh forged address does not escape it.
    const refused = await wrongPassword(FORGED[3]);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toMatch(/^[1-4]$/);

    const events: { event_name: string; entity_id: unknown; details: { ip_address: string | null } }[] = await apiCall(base, "GET", "/audit_events?per_page=100", token);
    const failures = events.filter((e) => e.event_name === "failed_sign_in");
    expect(failures.length).toBe(3);
    for (const e of failures) expect(e.details.ip_address).toBe("127.0.0.1");
    // The ban names the connection's address, not an address a client chose.
    const bans = events.filter((e) => e.event_name === "throttled");
    expect(bans.map((e) => e.entity_id)).toEqual(["127.0.0.1"]);
    const everyAddress = JSON.stringify(events);
    for (const forged of FORGED) expect(everyAddress).not.toContain(forged);

    // The ban ends after THROTTLE_FAILED_AUTH_BAN_SECONDS (4 s), for the connection it was put on:
    // the right password is tried until it is taken, at most 8 s.
    const rootGrant = () => fetch(`${base}/oauth/token`, { method: "POST", body: new URLSearchParams({ grant_type: "password", username: "root", password: ROOT_PASSWORD }) });
    let after = await rootGrant();
    await until(async () => (after = await rootGrant()).status !== 429, 8000, "the ban to end");
    expect(after.status).toBe(200);
  });
});
