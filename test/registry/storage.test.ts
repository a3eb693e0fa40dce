import { createExecutionContext, createScheduledController, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { BLOB_PREFIX, sweepAbandonedUploads } from "../../src/registry/uploads";
import { call, makePat, unique } from "../helpers/fixtures";
import { bytesOf, digestOf, envWith, pushableProject, pushBlob, pushImage, putManifest, registryCall, registryToken } from "./helpers";

/**
 * DESIGN.md "Registries", bounded storage: the sweep runs from the cron trigger, never inside a
 * push; collection is safe while pushes run; each project's registry size is accounted (GitLab's
 * container_registry_size) with an optional quota (REGISTRY_PROJECT_QUOTA_BYTES).
 */
const DAY = 86400_000;
const errorOf = async (res: Response) => ((await res.json()) as { errors: { code: string; message: string }[] }).errors[0];
/** Makes a blob look committed long ago by a push that is over (no hold): the sweep's target. */
const age = (digest: string) => env.DB.prepare("UPDATE registry_blobs SET created_at = ?, held_until = 0 WHERE digest = ?").bind(Date.now() - 2 * DAY, digest).run();
const objectOf = async (digest: string) => {
  const row = await env.DB.prepare("SELECT r2_key FROM registry_blobs WHERE digest = ?").bind(digest).first<{ r2_key: string }>();
  return row ? env.FILES.head(row.r2_key) : null;
};

describe("the sweep runs from the cron trigger, never inside a push", () => {
  it("the Worker's scheduled handler sweeps an abandoned upload session", async () => {
    const { name, token } = await pushableProject();
    const started = await registryCall(`/v2/${name}/blobs/uploads/`, { method: "POST", bearer: token });
    const location = started.headers.get("Location")!;
    await registryCall(location, { method: "PATCH", bearer: token, body: bytesOf("abandoned") });
    await env.DB.prepare("UPDATE registry_uploads SET updated_at = ? WHERE id = ?").bind(Date.now() - 2 * DAY, location.split("/").pop()).run();
    const ctx = createExecutionContext();
    await worker.scheduled(createScheduledController({ cron: "*/10 * * * *", scheduledTime: Date.now() }), env, ctx);
    await waitOnExecutionContext(ctx);
    expect((await registryCall(location, { bearer: token })).status).toBe(404);
  });
  it("starting an upload does not sweep: an abandoned session stays until the scheduled sweep", async () => {
    const { name, token } = await pushableProject();
    const started = await registryCall(`/v2/${name}/blobs/uploads/`, { method: "POST", bearer: token });
    const location = started.headers.get("Location")!;
    await env.DB.prepare("UPDATE registry_uploads SET updated_at = ? WHERE id = ?").bind(Date.now() - 2 * DAY, location.split("/").pop()).run();
    const short = envWith({ REGISTRY_UPLOAD_TTL_SECONDS: "1" });
    expect((await registryCall(`/v2/${name}/blobs/uploads/`, { method: "POST", bearer: token, env: short })).status).toBe(202);
    expect((await registryCall(location, { bearer: token })).status).toBe(204);
  });
  it("a whole push (chunked blob, monolithic blob, manifest) sweeps nothing: abandoned sessions and unreferenced blobs wait for the scheduled sweep", async () => {
    const { name, token } = await pushableProject();
    const short = envWith({ REGISTRY_UPLOAD_TTL_SECONDS: "1" });
    const stale = (await registryCall(`/v2/${name}/blobs/uploads/`, { method: "POST", bearer: token })).headers.get("Location")!;
    await env.DB.prepare("UPDATE registry_uploads SET updated_at = ? WHERE id = ?").bind(Date.now() - 2 * DAY, stale.split("/").pop()).run();
    const orphan = await pushBlob(name, token, bytesOf(unique("unreferenced")));
    await age(orphan);
    // The push, every request under a TTL that makes both of them sweepable.
    const layer = bytesOf(unique("chunked layer"));
    const started = await registryCall(`/v2/${name}/blobs/uploads/`, { method: "POST", bearer: token, env: short });
    const at = started.headers.get("Location")!;
    expect((await registryCall(at, { method: "PATCH", bearer: token, env: short, body: layer.slice(0, 5) })).status).toBe(202);
    const layerDigest = await digestOf(layer);
    expect((await registryCall(`${at}?digest=${layerDigest}`, { method: "PUT", bearer: token, env: short, body: layer.slice(5) })).status).toBe(201);
    const config = bytesOf(unique("cfg"));
    const configDigest = await digestOf(config);
    const mono = await registryCall(`/v2/${name}/blobs/uploads/?digest=${configDigest}`, { method: "POST", bearer: token, env: short, body: config, headers: { "Content-Length": String(config.byteLength) } });
    expect(mono.status).toBe(201);
    const manifest = bytesOf(JSON.stringify({
      schemaVersion: 2,
      mediaType: "application/vnd.oci.image.manifest.v1+json",
      config: { mediaType: "application/vnd.oci.image.config.v1+json", digest: configDigest, size: config.byteLength },
      layers: [{ mediaType: "application/vnd.oci.image.layer.v1.tar", digest: layerDigest, size: layer.byteLength }],
    }));
    const put = await registryCall(`/v2/${name}/manifests/v1`, { method: "PUT", bearer: token, env: short, body: manifest, headers: { "Content-Type": "application/vnd.oci.image.manifest.v1+json" } });
    expect(put.status).toBe(201);
    expect((await registryCall(stale, { bearer: token })).status).toBe(204);
    expect(await objectOf(orphan)).not.toBeNull();
    // The scheduled handler is where they go.
    const ctx = createExecutionContext();
    await worker.scheduled(createScheduledController({ cron: "*/10 * * * *", scheduledTime: Date.now() }), env, ctx);
    await waitOnExecutionContext(ctx);
    expect((await registryCall(stale, { bearer: token })).status).toBe(404);
    expect(await objectOf(orphan)).toBeNull();
  });
});

describe("garbage collection stays safe while pushes run", () => {
  it("a sweep over more stale objects than D1 binds in one statement (100) still runs: its key lookups go in batches", async () => {
    // A session id that sorts first, so the sweep's listing (500 objects a run) reaches these keys
    // whatever other tests left in the bucket.
    const prefix = `${BLOB_PREFIX}00000000-0000-4000-8000-${crypto.randomUUID().slice(-12)}`;
    const keys = Array.from({ length: 150 }, (_, i) => `${prefix}-${i}`);
    await Promise.all(keys.map((k) => env.FILES.put(k, "orphan")));
    // Every object counts as stale two days from now, so the sweep lists and checks all of them.
    const swept = await sweepAbandonedUploads(env, Date.now() + 2 * DAY);
    expect(swept.orphans).toBeGreaterThanOrEqual(keys.length);
    expect(await env.FILES.head(keys[0])).toBeNull();
  });
  it("a blob a push committed is held: the sweep does not collect it before its manifest arrives, even past the TTL", async () => {
    const { name, token } = await pushableProject();
    const digest = await pushBlob(name, token, bytesOf(unique("fresh layer")));
    // Committed long ago as far as the sweep can tell, but held by the push that just used it.
    await env.DB.prepare("UPDATE registry_blobs SET created_at = ? WHERE digest = ?").bind(Date.now() - 2 * DAY, digest).run();
    const swept = await sweepAbandonedUploads(env);
    expect(swept.unreferenced).toBe(0);
    expect((await registryCall(`/v2/${name}/blobs/${digest}`, { method: "HEAD", bearer: token })).status).toBe(200);
  });
  it("a manifest push raced against the sweep of its (old, unreferenced) blobs: the pushed image is intact, or the push is refused cleanly", async () => {
    const { name, token } = await pushableProject();
    let stored = 0;
    for (let round = 0; round < 6; round++) {
      const config = bytesOf(JSON.stringify({ os: "linux", round, id: unique("cfg") }));
      const layer = bytesOf(unique("old layer"));
      const [configDigest, layerDigest] = [await pushBlob(name, token, config), await pushBlob(name, token, layer)];
      await age(configDigest);
      await age(layerDigest);
      const manifest = bytesOf(JSON.stringify({
        schemaVersion: 2,
        mediaType: "application/vnd.oci.image.manifest.v1+json",
        config: { mediaType: "application/vnd.oci.image.config.v1+json", digest: configDigest, size: config.byteLength },
        layers: [{ mediaType: "application/vnd.oci.image.layer.v1.tar", digest: layerDigest, size: layer.byteLength }],
      }));
      const [push] = await Promise.all([putManifest(name, token, `r${round}`, manifest), sweepAbandonedUploads(env)]);
      if (push.status === 201) {
        stored++;
        const back = await registryCall(`/v2/${name}/manifests/r${round}`, { bearer: token });
        expect(new Uint8Array(await back.arrayBuffer())).toEqual(manifest);
        for (const d of [configDigest, layerDigest]) {
          expect((await registryCall(`/v2/${name}/blobs/${d}`, { method: "HEAD", bearer: token })).status).toBe(200);
          expect(await objectOf(d)).not.toBeNull();
        }
        // Referenced now: a later sweep keeps them.
        await sweepAbandonedUploads(env, Date.now() + 2 * DAY);
        expect(await objectOf(layerDigest)).not.toBeNull();
      } else {
        expect(push.status).toBe(400);
        expect((await errorOf(push)).code).toBe("MANIFEST_BLOB_UNKNOWN");
        expect((await registryCall(`/v2/${name}/manifests/r${round}`, { bearer: token })).status).toBe(404);
      }
    }
    expect(stored).toBeGreaterThan(0);
  });
  it("a manifest naming blobs already collected is refused (MANIFEST_BLOB_UNKNOWN), never stored pointing at nothing", async () => {
    const { name, token } = await pushableProject();
    const layer = await pushBlob(name, token, bytesOf(unique("collected")));
    const config = await pushBlob(name, token, bytesOf(unique("cfg")));
    await age(layer);
    await sweepAbandonedUploads(env);
    const manifest = { schemaVersion: 2, mediaType: "application/vnd.oci.image.manifest.v1+json", config: { mediaType: "application/vnd.oci.image.config.v1+json", digest: config, size: 1 }, layers: [{ mediaType: "application/vnd.oci.image.layer.v1.tar", digest: layer, size: 1 }] };
    const res = await putManifest(name, token, "late", bytesOf(JSON.stringify(manifest)));
    expect(res.status).toBe(400);
    expect((await errorOf(res)).code).toBe("MANIFEST_BLOB_UNKNOWN");
  });
});

describe("accounting: container_registry_size (GET /projects/:id?statistics=true)", () => {
  it("counts each blob the project's manifests reference once, plus the manifests; reporters see it, the field is absent without statistics=true", async () => {
    const { name, project, owner, auth } = await pushableProject();
    const token = await registryToken([`repository:${name}:pull,push`, `repository:${name}/sub:pull,push`], auth);
    const shared = unique("shared layer");
    const a = await pushImage(name, token, "a", [shared, unique("only in a")]);
    const b = await pushImage(`${name}/sub`, token, "b", [shared]);
    const sharedSize = bytesOf(shared).byteLength;
    const expected = a.totalSize + a.bytes.byteLength + (b.totalSize - sharedSize) + b.bytes.byteLength;
    const pat = await makePat(owner.id, ["read_api"]);
    const res = await call(`/api/v4/projects/${project.id}?statistics=true`, { token: pat });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { statistics: { container_registry_size: number } }).statistics.container_registry_size).toBe(expected);
    const plain = (await (await call(`/api/v4/projects/${project.id}`, { token: pat })).json()) as Record<string, unknown>;
    expect(plain).not.toHaveProperty("statistics");
  });
});

describe("quota: REGISTRY_PROJECT_QUOTA_BYTES", () => {
  it("a push that would take the project past its quota is 403 DENIED naming the quota; one within it is stored", async () => {
    const { name, token } = await pushableProject();
    const quotaEnv = envWith({ REGISTRY_PROJECT_QUOTA_BYTES: "2000" });
    const push = async (tag: string, size: number) => {
      const config = bytesOf(JSON.stringify({ os: "linux", id: unique("cfg") }));
      const layer = bytesOf("x".repeat(size) + unique(""));
      const manifest = bytesOf(JSON.stringify({
        schemaVersion: 2,
        mediaType: "application/vnd.oci.image.manifest.v1+json",
        config: { mediaType: "application/vnd.oci.image.config.v1+json", digest: await pushBlob(name, token, config), size: config.byteLength },
        layers: [{ mediaType: "application/vnd.oci.image.layer.v1.tar", digest: await pushBlob(name, token, layer), size: layer.byteLength }],
      }));
      return registryCall(`/v2/${name}/manifests/${tag}`, { method: "PUT", bearer: token, body: manifest, headers: { "Content-Type": "application/vnd.oci.image.manifest.v1+json" }, env: quotaEnv });
    };
    expect((await push("small", 500)).status).toBe(201);
    const refused = await push("big", 1500);
    expect(refused.status).toBe(403);
    const err = await errorOf(refused);
    expect(err.code).toBe("DENIED");
    expect(err.message).toContain("quota of 2000 bytes");
    expect(err.message).toContain("REGISTRY_PROJECT_QUOTA_BYTES");
    expect((await registryCall(`/v2/${name}/manifests/big`, { bearer: token })).status).toBe(404);
  });
});
