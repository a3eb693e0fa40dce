import { create } from "@bufbuild/protobuf";
import { execFile as execFileCallback } from "node:child_process";
import { createHash, randomFillSync } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FileStreamSchema } from "../../src/gen/proto/plugin_pb";
import { hiddenFields, Jar } from "./form-jar";
import { createUser, passwordGrant, rootPat, rootToken } from "./pages-support";
import { dec, enc, header, pluginClient } from "./plugin-helpers";
import { ROOT_DIR, startService, type RunningServer } from "./server";
import { pause as sleep, until, untilTime } from "./wait";

const execFile = promisify(execFileCallback);

/**
 * The checks that need `npm start` itself to end and start again on the same PERSIST_DIR, on one
 * server lifecycle of their own (own port, own state directory) rather than one each: every start
 * is a wrangler bundle and workerd boot (about 8 s alone, several times that beside two other
 * lanes), and the three used to boot six. One kill serves both crashes, one stop the durability.
 *
 * 1. First start. A user holding 120 grants (above D1's 100 bound parameters; see grantsOf); a
 *    registry blob PATCH of session A (after a recorded first chunk) and of session B and a
 *    generic package upload, all three streaming; then the block of that user. The moment the
 *    block's intent is committed (the state reads blocked), the whole process group is killed:
 *    `kill -9 -- -<pgid>`, nothing gets to clean up, the block's fan-out and the uploads all
 *    mid-change.
 * 2. Second start on the same state: DESIGN, "Changes that finish": the retried block finishes it
 *    (no token works, `user_blocked` audited once, unblock revives nothing); the upload session is
 *    free again within its lease (seconds, not the ten minutes of a lock) and resumes from what it
 *    had recorded, the other is cancelled and its blob pushed again at once; the killed package
 *    upload left nothing visible; after the cron's sweep `npm run check:integrity` finds nothing.
 *    Then the durability state (state outlives a restart): OAuth access and refresh tokens,
 *    personal access tokens, a browser session, a SendFile upload and a generic package file.
 * 3. That server is stopped (SIGTERM) and started a third time on the same state: all of it works.
 */
const persist = mkdtempSync(path.join(tmpdir(), "edge-auth-restarts-"));
const rootPassword = "crash-Root-Password-9";
// Short bounds so the sweep takes what the kill left within the test. The validation cache's
// bound as on the shared server (global-setup.ts): the retried block and the refresh after the
// restart each wait it out before answering (objects started anew vouched "just now").
const SWEEP_BOUND_SECONDS = 5;
const vars = { REGISTRY_UPLOAD_TTL_SECONDS: String(SWEEP_BOUND_SECONDS), ORPHAN_SWEEP_SECONDS: String(SWEEP_BOUND_SECONDS), VALIDATION_CACHE_SECONDS: "1" };
const UPLOAD_LEASE_SECONDS = 10;
const GRANTS = 120;
const MiB = 1024 * 1024;
let server: RunningServer | undefined;

const auth = (t: string) => ({ Authorization: `Bearer ${t}` });
const sha256 = (b: Uint8Array) => `sha256:${createHash("sha256").update(b).digest("hex")}`;

/** A request body that sends `first`, then waits (the client still sending) until the server dies. */
function stalledBody(first: Uint8Array) {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(first);
    },
    // Never closes: the request is in flight when the process group is killed.
    pull: () => new Promise(() => {}),
  });
}

async function registryToken(base: string, pat: string, name: string): Promise<string> {
  const q = new URLSearchParams({ service: "container_registry", scope: `repository:${name}:pull,push,delete` });
  const res = await fetch(`${base}/jwt/auth?${q}`, { headers: { Authorization: `Basic ${Buffer.from(`root:${pat}`).toString("base64")}` } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { token: string }).token;
}

async function tokenStatuses(base: string, tokens: string[]): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < tokens.length; i += 20) {
    out.push(...(await Promise.all(tokens.slice(i, i + 20).map(async (t) => (await fetch(`${base}/api/v4/user`, { headers: auth(t) })).status))));
  }
  return out;
}

/**
 * `count` grants of `user`, each a token family of its own as a password grant makes, by the
 * authorization-code flow of a trusted application (no consent page) on one browser session: a
 * password grant derives the password each time (PBKDF2, 100,000 iterations, the bulk of this
 * file's seeding on a loaded machine), the code flow two cheap requests.
 */
async function grantsOf(base: string, root: string, user: { username: string; password: string }, count: number): Promise<string[]> {
  const redirect = "http://127.0.0.1:9/callback";
  const appRes = await fetch(`${base}/api/v4/applications`, {
    method: "POST",
    headers: { ...auth(root), "Content-Type": "application/json" },
    body: JSON.stringify({ name: "crash block app", redirect_uri: redirect, scopes: "api", confidential: true, trusted: true }),
  });
  expect(appRes.status).toBe(201);
  const app = (await appRes.json()) as { application_id: string; secret: string };
  const jar = new Jar(base);
  const signInPage = await (await jar.fetch("/users/sign_in")).text();
  expect((await jar.post("/users/sign_in", { ...hiddenFields(signInPage), username: user.username, password: user.password })).status).toBe(303);
  const grant = async () => {
    const approved = await jar.fetch(`/oauth/authorize?${new URLSearchParams({ client_id: app.application_id, redirect_uri: redirect, response_type: "code", scope: "api", state: "s" })}`);
    expect(approved.status).toBe(302);
    const code = new URL(approved.headers.get("location")!).searchParams.get("code")!;
    const res = await fetch(`${base}/oauth/token`, {
      method: "POST",
      body: new URLSearchParams({ grant_type: "authorization_code", code, redirect_uri: redirect, client_id: app.application_id, client_secret: app.secret }),
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { access_token: string }).access_token;
  };
  const tokens: string[] = [];
  for (let i = 0; i < count; i += 10) tokens.push(...(await Promise.all(Array.from({ length: Math.min(10, count - i) }, grant))));
  return tokens;
}

/** What the first start made and saw before the kill; the tests assert on it after the restart. */
const before = {
  pat: "",
  user: { id: 0, username: "", password: "" },
  tokens: [] as string[],
  statusesBeforeBlock: [] as number[],
  project: { id: 0, name: "" },
  blob: randomFillSync(new Uint8Array(6 * MiB)),
  sessionA: "",
  sessionB: "",
  pkgPath: "",
  secondWriterStatus: 0,
  killedAt: 0,
};

beforeAll(async () => {
  server = await startService({ persistDir: persist, rootPassword, vars });
  const base = server.baseURL;
  const root = await rootToken(base, rootPassword);
  before.pat = await rootPat(base, rootPassword, "crash");

  // The block's user and its grants.
  before.user = await createUser(base, root, "crashblock");
  before.tokens = await grantsOf(base, root, before.user, GRANTS);
  before.statusesBeforeBlock = await tokenStatuses(base, before.tokens);

  // The uploads.
  const created = await fetch(`${base}/api/v4/projects`, { method: "POST", headers: { "PRIVATE-TOKEN": before.pat, "Content-Type": "application/json" }, body: JSON.stringify({ name: "crash-project" }) });
  expect(created.status).toBe(201);
  const project = (await created.json()) as { id: number; path_with_namespace: string };
  before.project = { id: project.id, name: project.path_with_namespace.toLowerCase() };
  const name = before.project.name;
  const bearer = auth(await registryToken(base, before.pat, name));
  const blob = before.blob;
  const start = async () => {
    const res = await fetch(`${base}/v2/${name}/blobs/uploads/`, { method: "POST", headers: bearer });
    expect(res.status).toBe(202);
    return new URL(res.headers.get("Location")!, base).pathname;
  };
  // Session A: a first chunk recorded, then a second chunk in flight at the kill.
  before.sessionA = await start();
  expect((await fetch(`${base}${before.sessionA}`, { method: "PATCH", headers: { ...bearer, "Content-Range": `0-${MiB - 1}` }, body: blob.subarray(0, MiB) })).status).toBe(202);
  const killedPatch = fetch(`${base}${before.sessionA}`, { method: "PATCH", headers: bearer, body: stalledBody(blob.subarray(MiB, 3 * MiB)), duplex: "half" } as RequestInit).catch(() => null);
  // Session B: only a chunk in flight at the kill.
  before.sessionB = await start();
  const killedPatchB = fetch(`${base}${before.sessionB}`, { method: "PATCH", headers: bearer, body: stalledBody(blob.subarray(0, 2 * MiB)), duplex: "half" } as RequestInit).catch(() => null);
  // A generic package upload in flight at the kill.
  before.pkgPath = `/api/v4/projects/${project.id}/packages/generic/crashed/1.0.0/file.bin`;
  const killedPackage = fetch(`${base}${before.pkgPath}`, { method: "PUT", headers: { "PRIVATE-TOKEN": before.pat }, body: stalledBody(blob.subarray(0, 2 * MiB)), duplex: "half" } as RequestInit).catch(() => null);
  await sleep(2000);
  // Mid-PATCH: the session is held, a second writer is refused.
  before.secondWriterStatus = (await fetch(`${base}${before.sessionA}`, { method: "PATCH", headers: bearer, body: blob.subarray(MiB, MiB + 10) })).status;

  // The block starts; the moment its intent is committed (the state reads blocked) the whole group
  // dies, the uploads above still streaming.
  const blocking = fetch(`${base}/api/v4/users/${before.user.id}/block`, { method: "POST", headers: auth(root) }).catch(() => null);
  const deadline = Date.now() + 30_000;
  for (;;) {
    const shown = (await (await fetch(`${base}/api/v4/users/${before.user.id}`, { headers: auth(root) })).json()) as { state: string };
    if (shown.state === "blocked") break;
    if (Date.now() > deadline) throw new Error("the block never committed its state");
  }
  await server.crash();
  before.killedAt = Date.now();
  await Promise.all([blocking, killedPatch, killedPatchB, killedPackage]);

  server = await startService({ persistDir: persist, rootPassword, vars });
});

afterAll(async () => {
  await server?.stop();
  rmSync(persist, { recursive: true, force: true });
});

// The two crashes are checked side by side on the second start; the durability test stops it.
describe.concurrent("crashes: kill -9 of the npm start process group mid-change, then a restart on the same state", () => {
  it("kill -9 of the process group during the block of a user with 120 grants; after restart the retry finishes it, and unblock revives nothing", async () => {
    expect(new Set(before.statusesBeforeBlock)).toEqual(new Set([200]));
    const base = server!.baseURL;
    const root = await rootToken(base, rootPassword);
    const { user, tokens } = before;
    const retry = await fetch(`${base}/api/v4/users/${user.id}/block`, { method: "POST", headers: auth(root) });
    expect(retry.status).toBe(201);
    // true when the retry finished pending effects, null when the killed request had finished them.
    expect([true, null]).toContain(await retry.json());
    expect(new Set(await tokenStatuses(base, tokens))).toEqual(new Set([401]));

    const audit = (await (await fetch(`${base}/api/v4/audit_events?entity_type=User&entity_id=${user.id}&per_page=100`, { headers: auth(root) })).json()) as {
      event_name: string;
    }[];
    expect(audit.filter((e) => e.event_name === "user_blocked")).toHaveLength(1);

    const unblock = await fetch(`${base}/api/v4/users/${user.id}/unblock`, { method: "POST", headers: auth(root) });
    expect(unblock.status).toBe(201);
    expect(await unblock.json()).toBe(true);
    expect(new Set(await tokenStatuses(base, tokens))).toEqual(new Set([401]));
  });

  it("the upload resumes or is cancelled and re-pushed at once after the restart, and the integrity check then finds nothing", async () => {
    expect(before.secondWriterStatus).toBe(416);
    const base = server!.baseURL;
    const { pat, blob, killedAt, project, sessionA: a, sessionB: b, pkgPath } = before;
    const name = project.name;
    const bearer = auth(await registryToken(base, pat, name));

    // A: what it had recorded is kept; it resumes as soon as the dead writer's lease ran out.
    const status = await fetch(`${base}${a}`, { headers: bearer });
    expect(status.status).toBe(204);
    expect(status.headers.get("Range")).toBe(`0-${MiB - 1}`);
    let resumed: Response;
    for (;;) {
      resumed = await fetch(`${base}${a}`, { method: "PATCH", headers: { ...bearer, "Content-Range": `${MiB}-${6 * MiB - 1}` }, body: blob.subarray(MiB) });
      if (resumed.status !== 416) break;
      expect(Date.now() - killedAt).toBeLessThan((UPLOAD_LEASE_SECONDS + 5) * 1000);
      await sleep(500);
    }
    expect(resumed.status).toBe(202);
    const digest = sha256(blob);
    expect((await fetch(`${base}${a}?digest=${digest}`, { method: "PUT", headers: bearer })).status).toBe(201);
    const pulled = new Uint8Array(await (await fetch(`${base}/v2/${name}/blobs/${digest}`, { headers: bearer })).arrayBuffer());
    expect(sha256(pulled)).toBe(digest);

    // B: cancelled at once, whatever its dead writer held; the same bytes pushed again at once.
    expect((await fetch(`${base}${b}`, { method: "DELETE", headers: bearer })).status).toBe(204);
    const small = blob.subarray(0, 2 * MiB);
    const again = await fetch(`${base}/v2/${name}/blobs/uploads/?digest=${sha256(small)}`, { method: "POST", headers: { ...bearer, "Content-Length": String(small.byteLength) }, body: small });
    expect(again.status).toBe(201);

    // The killed package upload left no package and no file.
    const packages = (await (await fetch(`${base}/api/v4/projects/${project.id}/packages`, { headers: { "PRIVATE-TOKEN": pat } })).json()) as unknown[];
    expect(packages).toEqual([]);
    expect((await fetch(`${base}${pkgPath}`, { headers: { "PRIVATE-TOKEN": pat } })).status).toBe(404);

    // Past the sweep's bounds (what the kill left is as old as the kill: a second past them,
    // counted from the kill, not from now), the cron runs; then the operator's check finds
    // nothing. The cron sweeps in waitUntil after its answer: the check is run again until it
    // reports nothing, at most 10 s; the last run's report is what is asserted.
    await untilTime(killedAt + (SWEEP_BOUND_SECONDS + 1) * 1000);
    expect((await fetch(`${base}/__scheduled?cron=${encodeURIComponent("*/10 * * * *")}`)).status).toBe(200);
    // Run asynchronously: a synchronous child would block the event loop past the server's
    // 5 s keep-alive, and the next fetch would reuse a socket the server has closed.
    let check = { status: -1, output: "" };
    await until(
      async () => {
        check = await execFile("npm", ["run", "--silent", "check:integrity", "--", "--url", base], { cwd: ROOT_DIR, env: { ...process.env, ROOT_PASSWORD: rootPassword }, encoding: "utf8", timeout: 120_000 }).then(
          (r) => ({ status: 0, output: `${r.stdout}${r.stderr}` }),
          (e: { code?: number; stdout?: string; stderr?: string }) => ({ status: typeof e.code === "number" ? e.code : -1, output: `${e.stdout ?? ""}${e.stderr ?? ""}` }),
        );
        return check.status === 0;
      },
      10_000,
      "npm run check:integrity finding nothing",
      500,
    ).catch(() => undefined);
    expect(check.output).toContain("nothing found");
    expect(check.status).toBe(0);
    const ready = (await (await fetch(`${base}/-/readiness`)).json()) as { integrity_check: { status: string }[] };
    expect(ready.integrity_check[0].status).toBe("ok");
  });
});

describe("durability: state outlives a restart of npm start on the same state directory", () => {
  it("tokens, sessions, uploaded files and package files survive stopping and starting on the same state", async () => {
    let base = server!.baseURL;
    const root = await rootToken(base, rootPassword);
    const user = await createUser(base, root, "durable");

    // A personal access token (admin API) and an OAuth token from the password grant.
    const patRes = await fetch(`${base}/api/v4/users/${user.id}/personal_access_tokens`, {
      method: "POST",
      headers: { ...auth(root), "Content-Type": "application/json" },
      body: JSON.stringify({ name: "durable", scopes: ["api"], expires_at: new Date(Date.now() + 7 * 86400_000).toISOString().slice(0, 10) }),
    });
    expect(patRes.status).toBe(201);
    const pat = ((await patRes.json()) as { token: string }).token;
    const grantToken = await passwordGrant(base, user.username, user.password, "api");

    // A browser session, and an authorization-code grant with a refresh token.
    const redirect = "http://127.0.0.1:9/callback";
    const appRes = await fetch(`${base}/api/v4/applications`, {
      method: "POST",
      headers: { ...auth(root), "Content-Type": "application/json" },
      body: JSON.stringify({ name: "durable app", redirect_uri: redirect, scopes: "api", confidential: true }),
    });
    expect(appRes.status).toBe(201);
    const app = (await appRes.json()) as { application_id: string; secret: string };
    const jar = new Jar(base);
    const signInPage = await (await jar.fetch("/users/sign_in")).text();
    const signedIn = await jar.post("/users/sign_in", { ...hiddenFields(signInPage), username: user.username, password: user.password });
    expect(signedIn.status).toBe(303);
    const consent = await jar.fetch(`/oauth/authorize?${new URLSearchParams({ client_id: app.application_id, redirect_uri: redirect, response_type: "code", scope: "api", state: "s" })}`);
    expect(consent.status).toBe(200);
    const decided = await jar.post("/oauth/authorize", { ...hiddenFields(await consent.text()), decision: "approve" });
    const code = new URL(decided.headers.get("location")!).searchParams.get("code")!;
    const tokenRes = await fetch(`${base}/oauth/token`, {
      method: "POST",
      body: new URLSearchParams({ grant_type: "authorization_code", code, redirect_uri: redirect, client_id: app.application_id, client_secret: app.secret }),
    });
    expect(tokenRes.status).toBe(200);
    const tokens = (await tokenRes.json()) as { access_token: string; refresh_token: string };

    // A SendFile upload and a generic package file.
    const bytes = randomFillSync(new Uint8Array(3 * 1024 * 1024 + 17));
    const digest = createHash("sha256").update(bytes).digest("hex");
    async function* parts() {
      yield create(FileStreamSchema, { Header: header({ Func: "upload" }), Name: "durable.bin", Purpose: "e2e", TotalSize: BigInt(bytes.byteLength), TotalPart: 1n, Part: 1n, Data: bytes });
    }
    const sent = await pluginClient("connect", base, pat).sendFile(parts());
    expect(sent.Code, sent.Desc).toBe(0);
    const fileId = (JSON.parse(dec(sent.Data)) as { id: string }).id;
    const project = (await (
      await fetch(`${base}/api/v4/projects`, { method: "POST", headers: { ...auth(pat), "Content-Type": "application/json" }, body: JSON.stringify({ name: "durable-project" }) })
    ).json()) as { id: number };
    const pkgPath = `/api/v4/projects/${project.id}/packages/generic/durable/1.0.0/blob.bin`;
    expect((await fetch(`${base}${pkgPath}`, { method: "PUT", headers: { "PRIVATE-TOKEN": pat }, body: bytes })).status).toBe(201);

    // Stop, and start again on the same state.
    await server!.stop();
    server = await startService({ persistDir: persist, rootPassword, vars });
    base = server.baseURL;
    jar.base = base;

    for (const t of [pat, grantToken, tokens.access_token]) {
      const me = await fetch(`${base}/api/v4/user`, { headers: auth(t) });
      expect(me.status).toBe(200);
      expect(((await me.json()) as { username: string }).username).toBe(user.username);
    }
    expect((await jar.fetch("/profile/personal_access_tokens")).status).toBe(200);
    const refreshed = await fetch(`${base}/oauth/token`, {
      method: "POST",
      body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: tokens.refresh_token, client_id: app.application_id, client_secret: app.secret }),
    });
    expect(refreshed.status).toBe(200);
    const rotated = (await refreshed.json()) as { access_token: string };
    expect((await fetch(`${base}/api/v4/user`, { headers: auth(rotated.access_token) })).status).toBe(200);

    const back = createHash("sha256");
    let length = 0;
    for await (const chunk of pluginClient("connect", base, pat).chat({ Header: header({ Func: "files.read" }), Data: enc(JSON.stringify({ id: fileId })) })) {
      expect(chunk.Code, chunk.Desc).toBe(0);
      back.update(chunk.Data);
      length += chunk.Data.byteLength;
    }
    expect(length).toBe(bytes.byteLength);
    expect(back.digest("hex")).toBe(digest);

    const pkg = await fetch(`${base}${pkgPath}`, { headers: { "PRIVATE-TOKEN": pat } });
    expect(pkg.status).toBe(200);
    expect(createHash("sha256").update(new Uint8Array(await pkg.arrayBuffer())).digest("hex")).toBe(digest);
  });
});
