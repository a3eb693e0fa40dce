import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { unique } from "../helpers/fixtures";
import { bytesOf, digestOf, pushableProject, pushBlob, pushImage, putManifest, registryCall } from "./helpers";

/**
 * OCI distribution spec v1.1.1, "Listing Referrers" (end-12a, end-12b) and "Pushing Manifests with
 * Subject": the referrers API, OCI-Subject, OCI-Filters-Applied, and manifests kept for their referrers.
 */
const INDEX = "application/vnd.oci.image.index.v1+json";
const MANIFEST = "application/vnd.oci.image.manifest.v1+json";
const EMPTY = "application/vnd.oci.empty.v1+json";
const errorCode = async (res: Response) => ((await res.json()) as { errors: { code: string }[] }).errors[0].code;
type Index = { schemaVersion: number; mediaType: string; manifests: { mediaType: string; digest: string; size: number; artifactType?: string; annotations?: Record<string, string> }[] };

/** An artifact manifest (empty config, one layer) whose subject is `subject`, pushed by digest. */
async function pushReferrer(name: string, token: string, subject: { digest: string; size: number }, artifactType: string | null, annotations?: Record<string, string>) {
  const config = await pushBlob(name, token, bytesOf("{}"));
  const layer = bytesOf(unique("signature"));
  const manifest = {
    schemaVersion: 2,
    mediaType: MANIFEST,
    ...(artifactType ? { artifactType } : {}),
    config: { mediaType: artifactType ? EMPTY : "application/vnd.example.config.v1+json", digest: config, size: 2 },
    layers: [{ mediaType: "application/octet-stream", digest: await pushBlob(name, token, layer), size: layer.byteLength }],
    subject: { mediaType: MANIFEST, digest: subject.digest, size: subject.size },
    ...(annotations ? { annotations } : {}),
  };
  const bytes = bytesOf(JSON.stringify(manifest));
  const digest = await digestOf(bytes);
  const res = await putManifest(name, token, digest, bytes);
  return { res, digest, size: bytes.byteLength };
}

const referrers = (name: string, token: string, digest: string, query = "") => registryCall(`/v2/${name}/referrers/${digest}${query}`, { bearer: token });

describe("pushing manifests with subject (OCI-Subject)", () => {
  it("a manifest with a subject answers 201 with OCI-Subject naming the subject's digest; one without has no OCI-Subject", async () => {
    const { name, token } = await pushableProject();
    const img = await pushImage(name, token, "v1");
    const plain = await putManifest(name, token, "again", img.bytes);
    expect(plain.status).toBe(201);
    expect(plain.headers.get("OCI-Subject")).toBeNull();
    const ref = await pushReferrer(name, token, { digest: img.digest, size: img.bytes.byteLength }, "application/vnd.example.sbom");
    expect(ref.res.status).toBe(201);
    expect(ref.res.headers.get("OCI-Subject")).toBe(img.digest);
    expect(ref.res.headers.get("Docker-Content-Digest")).toBe(ref.digest);
  });
  it("the subject need not exist in the registry: the push succeeds and the referrer is listed under it", async () => {
    const { name, token } = await pushableProject();
    const absent = await digestOf(bytesOf(unique("not pushed")));
    const ref = await pushReferrer(name, token, { digest: absent, size: 10 }, "application/vnd.example.sig");
    expect(ref.res.status).toBe(201);
    expect(ref.res.headers.get("OCI-Subject")).toBe(absent);
    const listed = (await (await referrers(name, token, absent)).json()) as Index;
    expect(listed.manifests.map((m) => m.digest)).toEqual([ref.digest]);
  });
  it("a malformed subject descriptor is MANIFEST_INVALID", async () => {
    const { name, token } = await pushableProject();
    const img = await pushImage(name, token, "v1");
    const bad = { ...img.manifest, subject: { mediaType: MANIFEST, digest: "sha256:nothex", size: 1 } };
    const res = await putManifest(name, token, "bad", bytesOf(JSON.stringify(bad)));
    expect(res.status).toBe(400);
    expect(await errorCode(res)).toBe("MANIFEST_INVALID");
  });
});

describe("listing referrers (end-12a, end-12b)", () => {
  it("no referrers: 200 with an empty image index (never 404), also for a repository with no manifests", async () => {
    const { name, token } = await pushableProject();
    const digest = await digestOf(bytesOf("nothing refers to this"));
    const empty = await referrers(name, token, digest);
    expect(empty.status).toBe(200);
    expect(empty.headers.get("Content-Type")).toBe(INDEX);
    expect(await empty.json()).toEqual({ schemaVersion: 2, mediaType: INDEX, manifests: [] });
    const img = await pushImage(name, token, "v1");
    const none = await referrers(name, token, img.digest);
    expect(none.status).toBe(200);
    expect(((await none.json()) as Index).manifests).toEqual([]);
  });
  it("lists each referrer's descriptor: mediaType, digest, size, artifactType (its own, else the config's mediaType) and annotations", async () => {
    const { name, token } = await pushableProject();
    const img = await pushImage(name, token, "v1");
    const subject = { digest: img.digest, size: img.bytes.byteLength };
    const sbom = await pushReferrer(name, token, subject, "application/vnd.example.sbom", { "org.opencontainers.image.created": "2026-01-01T00:00:00Z" });
    const untyped = await pushReferrer(name, token, subject, null);
    const index = { schemaVersion: 2, mediaType: INDEX, artifactType: "application/vnd.example.bundle", manifests: [{ mediaType: MANIFEST, digest: img.digest, size: img.bytes.byteLength }], subject: { mediaType: MANIFEST, ...subject } };
    const indexBytes = bytesOf(JSON.stringify(index));
    const indexPush = await putManifest(name, token, await digestOf(indexBytes), indexBytes, INDEX);
    expect(indexPush.status).toBe(201);
    expect(indexPush.headers.get("OCI-Subject")).toBe(img.digest);

    const res = await referrers(name, token, img.digest);
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe(INDEX);
    expect(res.headers.get("OCI-Filters-Applied")).toBeNull();
    const body = (await res.json()) as Index;
    expect(body.schemaVersion).toBe(2);
    expect(body.mediaType).toBe(INDEX);
    const byDigest = new Map(body.manifests.map((m) => [m.digest, m]));
    expect(byDigest.size).toBe(3);
    expect(byDigest.get(sbom.digest)).toEqual({ mediaType: MANIFEST, digest: sbom.digest, size: sbom.size, artifactType: "application/vnd.example.sbom", annotations: { "org.opencontainers.image.created": "2026-01-01T00:00:00Z" } });
    expect(byDigest.get(untyped.digest)).toEqual({ mediaType: MANIFEST, digest: untyped.digest, size: untyped.size, artifactType: "application/vnd.example.config.v1+json" });
    expect(byDigest.get(await digestOf(indexBytes))).toEqual({ mediaType: INDEX, digest: await digestOf(indexBytes), size: indexBytes.byteLength, artifactType: "application/vnd.example.bundle" });
  });
  it("the artifactType filter returns only matching referrers and answers OCI-Filters-Applied: artifactType", async () => {
    const { name, token } = await pushableProject();
    const img = await pushImage(name, token, "v1");
    const subject = { digest: img.digest, size: img.bytes.byteLength };
    const sig = await pushReferrer(name, token, subject, "application/vnd.example.sig");
    await pushReferrer(name, token, subject, "application/vnd.example.sbom");
    const res = await referrers(name, token, img.digest, `?artifactType=${encodeURIComponent("application/vnd.example.sig")}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("OCI-Filters-Applied")).toBe("artifactType");
    expect(((await res.json()) as Index).manifests.map((m) => m.digest)).toEqual([sig.digest]);
    const none = await referrers(name, token, img.digest, "?artifactType=application/vnd.example.none");
    expect(none.headers.get("OCI-Filters-Applied")).toBe("artifactType");
    expect(((await none.json()) as Index).manifests).toEqual([]);
  });
  it("referrers are per repository: another repository's manifest with the same subject is not listed", async () => {
    const a = await pushableProject();
    const b = await pushableProject();
    const img = await pushImage(a.name, a.token, "v1");
    await pushReferrer(b.name, b.token, { digest: img.digest, size: img.bytes.byteLength }, "application/vnd.example.sig");
    expect(((await (await referrers(a.name, a.token, img.digest)).json()) as Index).manifests).toEqual([]);
  });
  it("an invalid digest is 400 DIGEST_INVALID; no token is 401 with the pull challenge", async () => {
    const { name, token } = await pushableProject();
    const bad = await referrers(name, token, "sha256:xyz");
    expect(bad.status).toBe(400);
    expect(await errorCode(bad)).toBe("DIGEST_INVALID");
    const digest = await digestOf(bytesOf("x"));
    const anon = await registryCall(`/v2/${name}/referrers/${digest}`);
    expect(anon.status).toBe(401);
    expect(anon.headers.get("WWW-Authenticate")).toContain(`scope="repository:${name}:pull"`);
  });
});

describe("content management: a subject stays while a manifest refers to it", () => {
  it("removing the last tag of a manifest that a referrer names as its subject keeps the manifest", async () => {
    const { name, token } = await pushableProject();
    const img = await pushImage(name, token, "only");
    await pushReferrer(name, token, { digest: img.digest, size: img.bytes.byteLength }, "application/vnd.example.sig");
    expect((await registryCall(`/v2/${name}/manifests/only`, { method: "DELETE", bearer: token })).status).toBe(202);
    expect((await registryCall(`/v2/${name}/manifests/only`, { bearer: token })).status).toBe(404);
    const byDigest = await registryCall(`/v2/${name}/manifests/${img.digest}`, { bearer: token });
    expect(byDigest.status).toBe(200);
    expect(new Uint8Array(await byDigest.arrayBuffer())).toEqual(img.bytes);
    // Its blobs stay with it.
    expect((await registryCall(`/v2/${name}/blobs/${img.configDigest}`, { method: "HEAD", bearer: token })).status).toBe(200);
  });
  it("removing the last tag of a manifest nothing refers to still removes it", async () => {
    const { name, token } = await pushableProject();
    const img = await pushImage(name, token, "only");
    expect((await registryCall(`/v2/${name}/manifests/only`, { method: "DELETE", bearer: token })).status).toBe(202);
    expect((await registryCall(`/v2/${name}/manifests/${img.digest}`, { bearer: token })).status).toBe(404);
  });
});

describe("distribution spec, Listing Referrers: more than a page answers Link: rel=\"next\"", () => {
  it("1,001 referrers: the first page holds 1,000 and a Link to the rest (artifactType kept); the last page has no Link", async () => {
    const { name, token } = await pushableProject();
    const img = await pushImage(name, token, "v1");
    const subject = { digest: img.digest, size: img.bytes.byteLength };
    const type = "application/vnd.example.sig";
    const first = await pushReferrer(name, token, subject, type);
    expect(first.res.status).toBe(201);
    // The other 1,000 rows are written straight to D1 (pushing each would take minutes): the same columns a push writes.
    const { repository_id: repo } = (await env.DB.prepare("SELECT repository_id FROM registry_manifests WHERE digest = ?").bind(first.digest).first<{ repository_id: number }>())!;
    const insert = env.DB.prepare(
      "INSERT INTO registry_manifests (repository_id, digest, media_type, content, size, config_digest, total_size, subject_digest, artifact_type, annotations, created_at) VALUES (?, ?, ?, '{}', 2, '', 2, ?, ?, NULL, ?)",
    );
    const digests = await Promise.all(Array.from({ length: 1000 }, (_, i) => digestOf(bytesOf(`referrer ${name} ${i}`))));
    await env.DB.batch(digests.map((d) => insert.bind(repo, d, MANIFEST, img.digest, type, Date.now())));

    const page1 = await referrers(name, token, img.digest, `?artifactType=${encodeURIComponent(type)}`);
    expect(page1.status).toBe(200);
    const body1 = (await page1.json()) as Index;
    expect(body1.manifests).toHaveLength(1000);
    const link = page1.headers.get("Link");
    expect(link).toMatch(/^<\/v2\/[^>]+\/referrers\/sha256:[0-9a-f]{64}\?[^>]+>; rel="next"$/);
    const next = new URL(link!.slice(1, link!.indexOf(">")), "http://localhost");
    expect(next.searchParams.get("artifactType")).toBe(type);
    expect(next.searchParams.get("last")).toBe(body1.manifests[999].digest);

    const page2 = await registryCall(`${next.pathname}${next.search}`, { bearer: token });
    expect(page2.status).toBe(200);
    const body2 = (await page2.json()) as Index;
    expect(body2.manifests).toHaveLength(1);
    expect(page2.headers.get("Link")).toBeNull();
    const all = new Set([...body1.manifests, ...body2.manifests].map((m) => m.digest));
    expect(all.size).toBe(1001);
    expect(all.has(first.digest)).toBe(true);
  });
});
