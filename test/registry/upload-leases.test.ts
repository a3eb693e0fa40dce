import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { bytesOf, digestOf, pushableProject, registryCall } from "./helpers";
import { UPLOAD_LEASE_MS } from "../../src/registry/upload-lease";
import { until } from "../helpers/until";

/**
 * DESIGN, "Changes that finish": leases, not locks. A request writing to an upload session holds a
 * short lease renewed while its bytes arrive; a holder that died is taken over once its lease ran
 * out (UPLOAD_LEASE_MS, seconds); a client can always cancel (DELETE).
 */
async function startSession() {
  const p = await pushableProject();
  const res = await registryCall(`/v2/${p.name}/blobs/uploads/`, { method: "POST", bearer: p.token });
  expect(res.status).toBe(202);
  const location = res.headers.get("Location")!;
  return { ...p, location, id: location.split("/").pop()! };
}

/** What a request killed mid-PATCH leaves: its lease, taken at `claimedAt`, never renewed nor released. */
async function plantDeadHolder(id: string, claimedAt: number) {
  await env.DB.prepare("UPDATE registry_uploads SET busy_until = ?, lease_holder = 'killed-request' WHERE id = ?").bind(claimedAt + UPLOAD_LEASE_MS, id).run();
}

const leaseOf = (id: string) => env.DB.prepare("SELECT busy_until AS until, lease_holder AS holder FROM registry_uploads WHERE id = ?").bind(id).first<{ until: number; holder: string | null }>();

/** A request body the test feeds by hand: it stays open (a client still sending) until closed. */
function heldBody() {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const stream = new ReadableStream<Uint8Array>({ start: (c) => void (controller = c) });
  return { stream, send: (s: string) => controller.enqueue(bytesOf(s)), close: () => controller.close() };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("upload sessions are held by leases, not locks (DESIGN, Changes that finish)", () => {
  it("the lease is seconds long, not minutes", () => {
    expect(UPLOAD_LEASE_MS).toBeGreaterThanOrEqual(5_000);
    expect(UPLOAD_LEASE_MS).toBeLessThanOrEqual(30_000);
  });

  it("a session whose writer was killed is taken over once its lease ran out: PATCH and PUT resume it", async () => {
    const s = await startSession();
    expect((await registryCall(s.location, { method: "PATCH", bearer: s.token, body: bytesOf("first-") })).status).toBe(202);
    // Killed just now: its lease still runs, so a second writer is refused rather than interleaved.
    await plantDeadHolder(s.id, Date.now());
    const refused = await registryCall(s.location, { method: "PATCH", bearer: s.token, body: bytesOf("second") });
    expect(refused.status).toBe(416);
    expect(((await refused.json()) as { errors: { code: string }[] }).errors[0].code).toBe("RANGE_INVALID");
    // Killed one lease ago: the session is free again, with what it had received.
    await plantDeadHolder(s.id, Date.now() - UPLOAD_LEASE_MS - 1);
    const status = await registryCall(s.location, { bearer: s.token });
    expect(status.headers.get("Range")).toBe("0-5");
    const resumed = await registryCall(s.location, { method: "PATCH", bearer: s.token, body: bytesOf("second"), headers: { "Content-Range": "6-11" } });
    expect(resumed.status).toBe(202);
    await plantDeadHolder(s.id, Date.now() - UPLOAD_LEASE_MS - 1);
    const digest = await digestOf(bytesOf("first-second"));
    expect((await registryCall(`${s.location}?digest=${digest}`, { method: "PUT", bearer: s.token })).status).toBe(201);
    const blob = await registryCall(`/v2/${s.name}/blobs/${digest}`, { bearer: s.token });
    expect(new TextDecoder().decode(await blob.arrayBuffer())).toBe("first-second");
  });

  it("a live upload's lease is renewed while its bytes arrive, so nobody takes it over meanwhile", async () => {
    const s = await startSession();
    const body = heldBody();
    const patch = registryCall(s.location, { method: "PATCH", bearer: s.token, body: body.stream, duplex: "half" } as RequestInit);
    body.send("early bytes ");
    // The PATCH has begun once it holds the lease.
    await until(async () => (await leaseOf(s.id))?.holder != null, 5000, "the PATCH taking the lease", 20);
    const first = (await leaseOf(s.id))!;
    expect(first.holder).not.toBeNull();
    expect(first.until).toBeGreaterThan(Date.now());
    // A third of a lease later more bytes arrive: the lease now runs from then.
    await sleep(UPLOAD_LEASE_MS / 3);
    body.send("late bytes");
    await until(async () => (await leaseOf(s.id))!.until > first.until, 5000, "the lease renewed by the late bytes", 20);
    const renewed = (await leaseOf(s.id))!;
    expect(renewed.holder).toBe(first.holder);
    expect(renewed.until).toBeGreaterThan(first.until);
    expect((await registryCall(s.location, { method: "PATCH", bearer: s.token, body: bytesOf("intruder") })).status).toBe(416);
    body.close();
    const done = await patch;
    expect(done.status).toBe(202);
    expect(done.headers.get("Range")).toBe(`0-${"early bytes late bytes".length - 1}`);
    // Released: no lease remains on the session.
    expect((await leaseOf(s.id))!.until).toBe(0);
  });

  it("DELETE cancels a session whatever holds its lease, and removes its chunks", async () => {
    const s = await startSession();
    expect((await registryCall(s.location, { method: "PATCH", bearer: s.token, body: bytesOf("kept until cancelled") })).status).toBe(202);
    await plantDeadHolder(s.id, Date.now());
    expect((await registryCall(s.location, { method: "DELETE", bearer: s.token })).status).toBe(204);
    expect((await registryCall(s.location, { bearer: s.token })).status).toBe(404);
    expect((await env.FILES.list({ prefix: `registry/blobs/${s.id}` })).objects).toEqual([]);
    // The same blob can be pushed again at once.
    const bytes = bytesOf("kept until cancelled");
    const digest = await digestOf(bytes);
    const again = await registryCall(`/v2/${s.name}/blobs/uploads/?digest=${digest}`, { method: "POST", bearer: s.token, body: bytes });
    expect(again.status).toBe(201);
  });

  it("a chunk still arriving when its session is cancelled is removed, not recorded", async () => {
    const s = await startSession();
    const body = heldBody();
    const patch = registryCall(s.location, { method: "PATCH", bearer: s.token, body: body.stream, duplex: "half" } as RequestInit);
    body.send("bytes of a cancelled upload");
    // The chunk is arriving once its PATCH holds the lease.
    await until(async () => (await leaseOf(s.id))?.holder != null, 5000, "the PATCH taking the lease", 20);
    expect((await registryCall(s.location, { method: "DELETE", bearer: s.token })).status).toBe(204);
    body.close();
    const res = await patch;
    expect(res.status).toBe(416);
    expect((await env.FILES.list({ prefix: `registry/blobs/${s.id}` })).objects).toEqual([]);
    expect((await registryCall(s.location, { bearer: s.token })).status).toBe(404);
  });
});
