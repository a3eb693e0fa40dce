import { env } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { getDb } from "../../src/db/client";
import { insertFamilyRow } from "../../src/db/oauth-grants";
import { sweepUnusedDynamicClients } from "../../src/services/dynamic-clients";
import { call, json, makeUser, makeUserWithToken, unique } from "../helpers/fixtures";
import { REDIRECT } from "../oauth/helpers";

/**
 * DESIGN, "Changes that finish": a client exists only with its audit row (one D1 batch), and
 * dynamically registered clients that nobody received (no grant ever) are swept by the cron once
 * ORPHAN_SWEEP_SECONDS old.
 */
const HOUR = 3600_000;
let address = 0;
const register = (name: string) =>
  call("/oauth/register", {
    method: "POST",
    body: JSON.stringify({ client_name: name, redirect_uris: [REDIRECT] }),
    headers: { "Content-Type": "application/json", "CF-Connecting-IP": `203.0.113.${++address}` },
  });
const countApps = async (nameLike: string) =>
  (await env.DB.prepare("SELECT count(*) AS n FROM oauth_applications WHERE name LIKE ?").bind(`%${nameLike}%`).first<{ n: number }>())!.n;
const appByUid = (uid: string) => env.DB.prepare("SELECT id FROM oauth_applications WHERE uid = ?").bind(uid).first<{ id: number }>();

/** The audit insert fails for this action, as if the request died between the client and its audit row. */
const failAuditOf = (action: string) =>
  env.DB.prepare(`CREATE TRIGGER planted_audit_failure BEFORE INSERT ON audit_events WHEN NEW.action = '${action}' BEGIN SELECT RAISE(ABORT, 'planted failure'); END`).run();

afterEach(async () => {
  await env.DB.prepare("DROP TRIGGER IF EXISTS planted_audit_failure").run();
});

describe("a client and its audit row are written in one batch (DESIGN, Changes that finish)", () => {
  it("dynamic registration: when the audit row cannot be written, no client is left behind", async () => {
    const name = unique("unaudited-dynamic");
    await failAuditOf("dynamic_application_registered");
    expect((await register(name)).status).toBeGreaterThanOrEqual(500);
    expect(await countApps(name)).toBe(0);
  });

  it("application creation (admin API): when the audit row cannot be written, no application is left behind", async () => {
    const admin = await makeUserWithToken({ isAdmin: true });
    const name = unique("unaudited-app");
    await failAuditOf("application_created");
    const res = await call("/api/v4/applications", { ...json({ name, redirect_uri: "https://client.example/cb", scopes: "api" }), token: admin.token });
    expect(res.status).toBeGreaterThanOrEqual(500);
    expect(await countApps(name)).toBe(0);
  });

  it("both audit rows name the created client", async () => {
    const res = await register(unique("audited"));
    const { client_id } = (await res.json()) as { client_id: string };
    const app = (await appByUid(client_id))!;
    const audit = await env.DB.prepare("SELECT details FROM audit_events WHERE action = 'dynamic_application_registered' AND entity_id = ?").bind(String(app.id)).first<{ details: string }>();
    expect(audit).not.toBeNull();
  });
});

describe("dynamic clients nobody received are swept (DESIGN, Changes that finish)", () => {
  it("a registered client without any grant goes once ORPHAN_SWEEP_SECONDS old, with an audit row; a used one, a young one and an ordinary application stay", async () => {
    const unused = ((await (await register(unique("unused"))).json()) as { client_id: string }).client_id;
    const used = ((await (await register(unique("used"))).json()) as { client_id: string }).client_id;
    const user = await makeUser();
    const usedId = (await appByUid(used))!.id;
    await insertFamilyRow(getDb(env.DB), { id: unique("fam"), applicationId: usedId, userId: user.id, grantType: "authorization_code", scopes: "api", status: "revoked", createdAt: Date.now() });
    const admin = await makeUserWithToken({ isAdmin: true });
    const ordinary = (await (await call("/api/v4/applications", { ...json({ name: unique("ordinary"), redirect_uri: "https://client.example/cb", scopes: "api" }), token: admin.token })).json()) as { application_id: string };

    // Young: it may be in the middle of its first authorization.
    await sweepUnusedDynamicClients(env, Date.now());
    expect(await appByUid(unused)).not.toBeNull();

    const unusedId = (await appByUid(unused))!.id;
    const swept = await sweepUnusedDynamicClients(env, Date.now() + 2 * HOUR);
    expect(swept.clients).toBeGreaterThanOrEqual(1);
    expect(await appByUid(unused)).toBeNull();
    expect(await appByUid(used)).not.toBeNull();
    expect(await appByUid(ordinary.application_id)).not.toBeNull();
    const audit = await env.DB.prepare("SELECT details FROM audit_events WHERE action = 'dynamic_application_swept' AND entity_id = ?").bind(String(unusedId)).first<{ details: string }>();
    expect(JSON.parse(audit!.details)).toMatchObject({ application_id: unused });
  });
});
