import { spawnSync, type SpawnSyncReturns } from "node:child_process";
import { createHash, randomFillSync } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { rootPat } from "./pages-support";
import { ROOT_DIR, startService, type RunningServer } from "./server";
import { pause as sleep, until, untilTime } from "./wait";

/**
 * DESIGN, "Changes that finish", as a crash: `npm start` killed with SIGKILL to its whole process
 * group (`kill -9 -- -<pgid>`) while a registry blob PATCH and a generic package upload are
 * streaming, then started again on the same PERSIST_DIR. The upload session is free again within
 * its lease (seconds, not the ten minutes of a lock): it resumes from what it had recorded, another
 * one is cancelled and its blob pushed again at once; the killed package upload left nothing
 * visible; after the cron's sweep `npm run check:integrity` finds nothing.
 */
const persist = mkdtempSync(path.join(tmpdir(), "edge-auth-crash-"));
const rootPassword = "crash-Root-Password-9";
// Short bounds so the sweep takes what the kill left within the test.
const SWEEP_BOUND_SECONDS = 5;
const vars = { REGISTRY_UPLOAD_TTL_SECONDS: String(SWEEP_BOUND_SECONDS), ORPHAN_SWEEP_SECONDS: String(SWEEP_BOUND_SECONDS) };
const UPLOAD_LEASE_SECONDS = 10;
const MiB = 1024 * 1024;
let server: RunningServer | undefined;
afterAll(async () => {
  await server?.stop();
  rmSync(persist, { recursive: true, force: true });
});

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

describe("a crash in the middle of uploads (kill -9 of the npm start process group)", () => {
  it("the upload resumes or is cancelled and re-pushed at once after the restart, and the integrity check then finds nothing", { timeout: 600_000 }, async () => {
    server = await startService({ persistDir: persist, rootPassword, vars });
    let base = server.baseURL;
    const pat = await rootPat(base, rootPassword, "crash");
    const created = await fetch(`${base}/api/v4/projects`, { method: "POST", headers: { "PRIVATE-TOKEN": pat, "Content-Type": "application/json" }, body: JSON.stringify({ name: "crash-project" }) });
    expect(created.status).toBe(201);
    const project = (await created.json()) as { id: number; path_with_namespace: string };
    const name = project.path_with_namespace.toLowerCase();
    let bearer = { Authorization: `Bearer ${await registryToken(base, pat, name)}` };

    const blob = randomFillSync(new Uint8Array(6 * MiB));
    const start = async () => {
      const res = await fetch(`${base}/v2/${name}/blobs/uploads/`, { method: "POST", headers: bearer });
      expect(res.status).toBe(202);
      return new URL(res.headers.get("Location")!, base).pathname;
    };
    // Session A: a first chunk recorded, then a second chunk in flight at the kill.
    const a = await start();
    expect((await fetch(`${base}${a}`, { method: "PATCH", headers: { ...bearer, "Content-Range": `0-${MiB - 1}` }, body: blob.subarray(0, MiB) })).status).toBe(202);
    const killedPatch = fetch(`${base}${a}`, { method: "PATCH", headers: bearer, body: stalledBody(blob.subarray(MiB, 3 * MiB)), duplex: "half" } as RequestInit).catch(() => null);
    // Session B: only a chunk in flight at the kill.
    const b = await start();
    const killedPatchB = fetch(`${base}${b}`, { method: "PATCH", headers: bearer, body: stalledBody(blob.subarray(0, 2 * MiB)), duplex: "half" } as RequestInit).catch(() => null);
    // A generic package upload in flight at the kill.
    const pkgPath = `/api/v4/projects/${project.id}/packages/generic/crashed/1.0.0/file.bin`;
    const killedPackage = fetch(`${base}${pkgPath}`, { method: "PUT", headers: { "PRIVATE-TOKEN": pat }, body: stalledBody(blob.subarray(0, 2 * MiB)), duplex: "half" } as RequestInit).catch(() => null);
    await sleep(2000);
    // Mid-PATCH: the session is held, a second writer is refused.
    expect((await fetch(`${base}${a}`, { method: "PATCH", headers: bearer, body: blob.subarray(MiB, MiB + 10) })).status).toBe(416);

    await server.crash();
    const killedAt = Date.now();
    await Promise.all([killedPatch, killedPatchB, killedPackage]);
    server = await startService({ persistDir: persist, rootPassword, vars });
    base = server.baseURL;
    bearer = { Authorization: `Bearer ${await registryToken(base, pat, name)}` };

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
    let check!: SpawnSyncReturns<string>;
    await until(
      () => {
        check = spawnSync("npm", ["run", "--silent", "check:integrity", "--", "--url", base], { cwd: ROOT_DIR, env: { ...process.env, ROOT_PASSWORD: rootPassword }, encoding: "utf8", timeout: 120_000 });
        return check.status === 0;
      },
      10_000,
      "npm run check:integrity finding nothing",
      500,
    ).catch(() => undefined);
    expect(`${check.stdout}${check.stderr}`).toContain("nothing found");
    expect(check.status).toBe(0);
    const ready = (await (await fetch(`${base}/-/readiness`)).json()) as { integrity_check: { status: string }[] };
    expect(ready.integrity_check[0].status).toBe("ok");
  });
});
