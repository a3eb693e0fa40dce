import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { apiCall, passwordGrant } from "./pages-support";
import { skopeo as runSkopeo } from "./skopeo";

/**
 * The container and package registries end to end (issue 10, Tests): Debian's skopeo pushes a
 * multi-layer image from a local OCI layout to `npm start` over http on 127.0.0.1, inspects it,
 * lists its tags, pulls it back byte for byte, and sees it gone after a delete through the REST
 * API; a read-only token cannot push; OAuth tokens are refused by /jwt/auth and generic packages.
 */
const base = inject("baseURL");
const host = new URL(base).host;
const work = mkdtempSync(path.join(tmpdir(), "registry-e2e-"));
const suffix = randomBytes(4).toString("hex");

const skopeo = (args: string[]) => runSkopeo(work, args);

const api = (method: string, p: string, token: string, body?: unknown) => apiCall(base, method, p, token, body);

const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex");

/** An OCI image layout (image-layout spec) with a config and two gzip layers, tagged v1. */
function buildLayout(dir: string) {
  mkdirSync(path.join(dir, "blobs", "sha256"), { recursive: true });
  const put = (b: Buffer) => {
    writeFileSync(path.join(dir, "blobs", "sha256", sha(b)), b);
    return { digest: `sha256:${sha(b)}`, size: b.length };
  };
  const layers = [gzipSync(randomBytes(300_000)), gzipSync(Buffer.from(`second layer ${suffix}\n`.repeat(1000)))];
  const layerDescs = layers.map((l) => ({ mediaType: "application/vnd.oci.image.layer.v1.tar+gzip", ...put(l) }));
  const config = Buffer.from(JSON.stringify({ architecture: "amd64", os: "linux", rootfs: { type: "layers", diff_ids: layers.map((l) => `sha256:${sha(l)}`) }, config: {} }));
  const manifest = Buffer.from(JSON.stringify({ schemaVersion: 2, mediaType: "application/vnd.oci.image.manifest.v1+json", config: { mediaType: "application/vnd.oci.image.config.v1+json", ...put(config) }, layers: layerDescs }));
  const m = put(manifest);
  writeFileSync(path.join(dir, "oci-layout"), JSON.stringify({ imageLayoutVersion: "1.0.0" }));
  writeFileSync(path.join(dir, "index.json"), JSON.stringify({ schemaVersion: 2, manifests: [{ mediaType: "application/vnd.oci.image.manifest.v1+json", ...m, annotations: { "org.opencontainers.image.ref.name": "v1" } }] }));
  return { layers, config, layerDigests: layerDescs.map((l) => l.digest) };
}

let rootToken = "";
let username = "";
let oauthToken = "";
let writePat = "";
let readPat = "";
let project: { id: number; path_with_namespace: string };
let image = "";
let layout: ReturnType<typeof buildLayout>;

beforeAll(async () => {
  rootToken = await passwordGrant(base, "root", inject("rootPassword"));
  username = `pusher${suffix}`;
  const password = `Reg-e2e-${randomBytes(8).toString("hex")}`;
  const user = await api("POST", "/users", rootToken, { username, name: "Registry Tester", email: `${username}@example.com`, password, skip_confirmation: true });
  const expires_at = new Date(Date.now() + 7 * 86400_000).toISOString().slice(0, 10);
  const mkPat = async (scopes: string[]) => (await api("POST", `/users/${user.id}/personal_access_tokens`, rootToken, { name: scopes.join("-"), scopes, expires_at })).token as string;
  writePat = await mkPat(["write_registry", "api"]);
  readPat = await mkPat(["read_registry"]);
  project = await api("POST", "/projects", writePat, { name: `Images ${suffix}`, path: `images-${suffix}`, visibility: "private" });
  image = `${host}/${project.path_with_namespace}`;
  oauthToken = await passwordGrant(base, username, password);
  layout = buildLayout(path.join(work, "layout"));
}, 120_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("skopeo against the container registry (OCI distribution API, token service)", () => {
  it("pushes a multi-layer image, inspects it, lists tags, pulls it back byte for byte, and sees it gone after a REST delete", async () => {
    const push = await skopeo(["copy", "--dest-tls-verify=false", "--dest-creds", `${username}:${writePat}`, `oci:${path.join(work, "layout")}:v1`, `docker://${image}:v1`]);
    expect(push.ok, push.out).toBe(true);
    // A second tag by copying registry to registry (the blobs already exist: HEAD, then the manifest).
    const again = await skopeo(["copy", "--src-tls-verify=false", "--dest-tls-verify=false", "--src-creds", `${username}:${writePat}`, "--dest-creds", `${username}:${writePat}`, `docker://${image}:v1`, `docker://${image}:stable`]);
    expect(again.ok, again.out).toBe(true);

    const inspect = await skopeo(["inspect", "--tls-verify=false", "--creds", `${username}:${readPat}`, `docker://${image}:v1`]);
    expect(inspect.ok, inspect.out).toBe(true);
    expect(JSON.parse(inspect.out).Layers).toEqual(layout.layerDigests);

    const tags = await skopeo(["list-tags", "--tls-verify=false", "--creds", `${username}:${readPat}`, `docker://${image}`]);
    expect(tags.ok, tags.out).toBe(true);
    expect(JSON.parse(tags.out).Tags).toEqual(["stable", "v1"]);

    const out = path.join(work, "pulled");
    const pull = await skopeo(["copy", "--src-tls-verify=false", "--src-creds", `${username}:${readPat}`, `docker://${image}:v1`, `dir:${out}`]);
    expect(pull.ok, pull.out).toBe(true);
    for (const [i, digest] of layout.layerDigests.entries()) {
      expect(readFileSync(path.join(out, digest.slice(7))).equals(layout.layers[i])).toBe(true);
    }

    // Delete the repository through the REST API with an OAuth token (spec: tokens may delete).
    const repos = await (await fetch(`${base}/api/v4/projects/${project.id}/registry/repositories`, { headers: { Authorization: `Bearer ${oauthToken}` } })).json();
    expect(repos.map((r: { path: string }) => r.path)).toEqual([project.path_with_namespace]);
    const del = await fetch(`${base}/api/v4/projects/${project.id}/registry/repositories/${repos[0].id}`, { method: "DELETE", headers: { Authorization: `Bearer ${oauthToken}` } });
    expect(del.status).toBe(202);
    const gone = await skopeo(["inspect", "--tls-verify=false", "--creds", `${username}:${readPat}`, `docker://${image}:v1`]);
    expect(gone.ok).toBe(false);
    expect(gone.out).toMatch(/manifest unknown|name unknown|not found/i);
  });

  it("refuses a push with a read-only token", async () => {
    const push = await skopeo(["copy", "--dest-tls-verify=false", "--dest-creds", `${username}:${readPat}`, `oci:${path.join(work, "layout")}:v1`, `docker://${image}:readonly`]);
    expect(push.ok).toBe(false);
    expect(push.out).toMatch(/denied|unauthorized/i);
  });

  it("refuses an OAuth access token at /jwt/auth (401), and skopeo with it fails", async () => {
    const res = await fetch(`${base}/jwt/auth?service=container_registry&scope=repository:${project.path_with_namespace}:pull`, {
      headers: { Authorization: `Basic ${Buffer.from(`oauth2:${oauthToken}`).toString("base64")}` },
    });
    expect(res.status).toBe(401);
    expect((await res.json()).errors[0].code).toBe("UNAUTHORIZED");
    const push = await skopeo(["copy", "--dest-tls-verify=false", "--dest-creds", `oauth2:${oauthToken}`, `oci:${path.join(work, "layout")}:v1`, `docker://${image}:oauth`]);
    expect(push.ok).toBe(false);
  });
});

describe("generic packages with real HTTP clients", () => {
  const file = (p: number) => `${base}/api/v4/projects/${p}/packages/generic/tool/1.0.0/tool.txt`;
  it("a personal access token uploads, a deploy token downloads and uploads, an OAuth token is refused with 401", async () => {
    const put = await fetch(file(project.id), { method: "PUT", headers: { "PRIVATE-TOKEN": writePat }, body: "from a PAT" });
    expect(put.status).toBe(201);
    const dt = await api("POST", `/projects/${project.id}/deploy_tokens`, writePat, { name: "ci", scopes: ["read_package_registry", "write_package_registry"] });
    const get = await fetch(file(project.id), { headers: { Authorization: `Basic ${Buffer.from(`${dt.username}:${dt.token}`).toString("base64")}` } });
    expect(await get.text()).toBe("from a PAT");
    expect((await fetch(file(project.id).replace("tool.txt", "dt.txt"), { method: "PUT", headers: { "DEPLOY-TOKEN": dt.token }, body: "dt" })).status).toBe(201);
    const refused = await fetch(file(project.id), { headers: { Authorization: `Bearer ${oauthToken}` } });
    expect(refused.status).toBe(401);
    expect((await refused.json()).message).toMatch(/personal access token.*deploy token/);
  });
});
