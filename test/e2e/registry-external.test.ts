import { spawn, type ChildProcess } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { apiCall, passwordGrant } from "./pages-support";
import { skopeo as runSkopeo } from "./skopeo";

/**
 * DESIGN.md "Registries", tokens an external registry can verify: Debian's docker-registry
 * (Docker distribution 2.8) on 127.0.0.1, configured with this service (`npm start`) as its token
 * server from /jwt/configuration and /jwt/rootcertbundle (docs/registries.md, "An external
 * registry"); skopeo pushes to it and pulls from it with a personal access token and with a deploy
 * token, and an OAuth access token is refused.
 */
const base = inject("baseURL");
const work = mkdtempSync(path.join(tmpdir(), "registry-external-"));
const suffix = randomBytes(4).toString("hex");
const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex");

const skopeo = (args: string[]) => runSkopeo(work, args);

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/** An OCI image layout with a config and one gzip layer, tagged v1. */
function buildLayout(dir: string) {
  mkdirSync(path.join(dir, "blobs", "sha256"), { recursive: true });
  const put = (b: Buffer) => {
    writeFileSync(path.join(dir, "blobs", "sha256", sha(b)), b);
    return { digest: `sha256:${sha(b)}`, size: b.length };
  };
  const layer = gzipSync(Buffer.from(`external registry layer ${suffix}\n`.repeat(2000)));
  const layerDesc = { mediaType: "application/vnd.oci.image.layer.v1.tar+gzip", ...put(layer) };
  const config = Buffer.from(JSON.stringify({ architecture: "amd64", os: "linux", rootfs: { type: "layers", diff_ids: [`sha256:${sha(layer)}`] }, config: {} }));
  const manifest = Buffer.from(JSON.stringify({ schemaVersion: 2, mediaType: "application/vnd.oci.image.manifest.v1+json", config: { mediaType: "application/vnd.oci.image.config.v1+json", ...put(config) }, layers: [layerDesc] }));
  writeFileSync(path.join(dir, "oci-layout"), JSON.stringify({ imageLayoutVersion: "1.0.0" }));
  writeFileSync(path.join(dir, "index.json"), JSON.stringify({ schemaVersion: 2, manifests: [{ mediaType: "application/vnd.oci.image.manifest.v1+json", ...put(manifest), annotations: { "org.opencontainers.image.ref.name": "v1" } }] }));
  return { layer, layerDigest: layerDesc.digest };
}

let registry: ChildProcess | null = null;
let registryLog = "";
let host = "";
let image = "";
let repository = "";
let username = "";
let writePat = "";
let oauthToken = "";
let deployUser = "";
let deployToken = "";
let layout: ReturnType<typeof buildLayout>;

beforeAll(async () => {
  // The service's side: a user, a project, a PAT, a deploy token, an OAuth token.
  const rootToken = await passwordGrant(base, "root", inject("rootPassword"));
  const api = (method: string, p: string, token: string, body?: unknown) => apiCall(base, method, p, token, body);
  username = `external${suffix}`;
  const password = `Ext-e2e-${randomBytes(8).toString("hex")}`;
  const user = await api("POST", "/users", rootToken, { username, name: "External Registry Tester", email: `${username}@example.com`, password, skip_confirmation: true });
  const expires_at = new Date(Date.now() + 7 * 86400_000).toISOString().slice(0, 10);
  writePat = (await api("POST", `/users/${user.id}/personal_access_tokens`, rootToken, { name: "ext", scopes: ["write_registry", "api"], expires_at })).token;
  const project = await api("POST", "/projects", writePat, { name: `External ${suffix}`, path: `external-${suffix}`, visibility: "private" });
  const deploy = await api("POST", `/projects/${project.id}/deploy_tokens`, writePat, { name: "ci", scopes: ["read_registry", "write_registry"] });
  deployUser = deploy.username;
  deployToken = deploy.token;
  oauthToken = await passwordGrant(base, username, password);
  layout = buildLayout(path.join(work, "layout"));

  // The registry's side: distribution 2.8 configured from what the service publishes.
  const config = (await (await fetch(`${base}/jwt/configuration`)).json()) as { realm: string; service: string; issuer: string; rootcertbundle_uri: string };
  const bundle = await fetch(config.rootcertbundle_uri);
  expect(bundle.status).toBe(200);
  writeFileSync(path.join(work, "bundle.pem"), await bundle.text());
  const port = await freePort();
  host = `127.0.0.1:${port}`;
  repository = project.path_with_namespace;
  image = `${host}/${repository}`;
  const yaml = [
    "version: 0.1",
    "log:",
    "  level: info",
    "storage:",
    "  filesystem:",
    `    rootdirectory: ${path.join(work, "storage")}`,
    "  delete:",
    "    enabled: true",
    "http:",
    `  addr: ${host}`,
    "auth:",
    "  token:",
    `    realm: ${config.realm}`,
    `    service: ${config.service}`,
    `    issuer: ${config.issuer}`,
    `    rootcertbundle: ${path.join(work, "bundle.pem")}`,
    "",
  ].join("\n");
  writeFileSync(path.join(work, "config.yml"), yaml);
  registry = spawn("docker-registry", ["serve", path.join(work, "config.yml")], { stdio: ["ignore", "pipe", "pipe"] });
  registry.stdout!.on("data", (d) => (registryLog += d));
  registry.stderr!.on("data", (d) => (registryLog += d));
  for (let i = 0; i < 100; i++) {
    const res = await fetch(`http://${host}/v2/`).catch(() => null);
    if (res?.status === 401) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`docker-registry did not start:\n${registryLog}`);
}, 120_000);

afterAll(() => {
  registry?.kill("SIGTERM");
  rmSync(work, { recursive: true, force: true });
});

describe("Docker distribution 2.8 with this service as its token server", () => {
  it("its challenge points at /jwt/auth", async () => {
    const res = await fetch(`http://${host}/v2/`);
    expect(res.status).toBe(401);
    expect(res.headers.get("WWW-Authenticate")).toBe(`Bearer realm="${base}/jwt/auth",service="container_registry"`);
  });

  it("skopeo pushes and pulls back with a personal access token", async () => {
    const push = await skopeo(["copy", "--dest-tls-verify=false", "--dest-creds", `${username}:${writePat}`, `oci:${path.join(work, "layout")}:v1`, `docker://${image}:v1`]);
    expect(push.ok, `${push.out}\n${registryLog.slice(-3000)}`).toBe(true);
    const out = path.join(work, "pulled-pat");
    const pull = await skopeo(["copy", "--src-tls-verify=false", "--src-creds", `${username}:${writePat}`, `docker://${image}:v1`, `dir:${out}`]);
    expect(pull.ok, pull.out).toBe(true);
    expect(readFileSync(path.join(out, layout.layerDigest.slice(7))).equals(layout.layer)).toBe(true);
  });

  it("skopeo pushes and pulls back with a deploy token", async () => {
    const push = await skopeo(["copy", "--dest-tls-verify=false", "--dest-creds", `${deployUser}:${deployToken}`, `oci:${path.join(work, "layout")}:v1`, `docker://${image}:deployed`]);
    expect(push.ok, push.out).toBe(true);
    const tags = await skopeo(["list-tags", "--tls-verify=false", "--creds", `${deployUser}:${deployToken}`, `docker://${image}`]);
    expect(tags.ok, tags.out).toBe(true);
    expect(JSON.parse(tags.out).Tags).toEqual(expect.arrayContaining(["deployed", "v1"]));
    const out = path.join(work, "pulled-deploy");
    const pull = await skopeo(["copy", "--src-tls-verify=false", "--src-creds", `${deployUser}:${deployToken}`, `docker://${image}:deployed`, `dir:${out}`]);
    expect(pull.ok, pull.out).toBe(true);
    expect(readFileSync(path.join(out, layout.layerDigest.slice(7))).equals(layout.layer)).toBe(true);
  });

  it("an OAuth access token is refused: no token from /jwt/auth, so skopeo can neither pull nor push", async () => {
    const pull = await skopeo(["inspect", "--tls-verify=false", "--creds", `${username}:${oauthToken}`, `docker://${image}:v1`]);
    expect(pull.ok).toBe(false);
    expect(pull.out).toMatch(/unauthorized|authentication required|denied/i);
    const push = await skopeo(["copy", "--dest-tls-verify=false", "--dest-creds", `${username}:${oauthToken}`, `oci:${path.join(work, "layout")}:v1`, `docker://${image}:oauth`]);
    expect(push.ok).toBe(false);
  });

  it("a token naming another repository does not open this one; one naming it does (distribution checks the access claim)", async () => {
    const tokenFor = async (scope: string) => {
      const q = new URLSearchParams({ service: "container_registry", scope });
      return (await (await fetch(`${base}/jwt/auth?${q}`, { headers: { Authorization: `Basic ${Buffer.from(`${username}:${writePat}`).toString("base64")}` } })).json()).token as string;
    };
    const url = `http://${host}/v2/${repository}/manifests/v1`;
    const accept = "application/vnd.oci.image.manifest.v1+json";
    const other = await fetch(url, { headers: { Authorization: `Bearer ${await tokenFor(`repository:${repository}-other:pull`)}`, Accept: accept } });
    expect(other.status).toBe(401);
    const own = await fetch(url, { headers: { Authorization: `Bearer ${await tokenFor(`repository:${repository}:pull`)}`, Accept: accept } });
    expect(own.status).toBe(200);
  });
});
