import { createHash, randomBytes } from "node:crypto";
import { describe, expect, inject, it } from "vitest";
import { apiCall, pagesSession, passwordGrant, shot, signIn } from "./pages-support";

/**
 * Issue 10 pages in headless Chromium: the project's container registry (repositories, tags,
 * sizes, delete after the confirmation dialog) and deploy tokens in the project's settings.
 */
const pages = pagesSession();
const base = pages.base;

const api = (method: string, p: string, token: string, body?: unknown) => apiCall(base, method, p, token, body);

const sha = (b: Buffer) => `sha256:${createHash("sha256").update(b).digest("hex")}`;

/** A user with a project and an image pushed through /v2/ with a write_registry token. */
async function projectWithImage() {
  const user = await pages.createUser("imager");
  const oauth = await passwordGrant(base, user.username, user.password);
  const suffix = randomBytes(3).toString("hex");
  const project = await api("POST", "/projects", oauth, { name: `Images ${suffix}`, path: `images-${suffix}`, visibility: "private" });
  const rootOauth = await passwordGrant(base, "root", inject("rootPassword"));
  const expires_at = new Date(Date.now() + 7 * 86400_000).toISOString().slice(0, 10);
  const pat = (await api("POST", `/users/${user.id}/personal_access_tokens`, rootOauth, { name: "push", scopes: ["write_registry"], expires_at })).token;
  const name = project.path_with_namespace.toLowerCase();
  const q = new URLSearchParams({ service: "container_registry", scope: `repository:${name}:pull,push` });
  const jwt = (await (await fetch(`${base}/jwt/auth?${q}`, { headers: { Authorization: `Basic ${Buffer.from(`${user.username}:${pat}`).toString("base64")}` } })).json()).token;
  const bearer = { Authorization: `Bearer ${jwt}` };
  const blob = async (b: Buffer) => {
    const res = await fetch(`${base}/v2/${name}/blobs/uploads/?digest=${sha(b)}`, { method: "POST", headers: bearer, body: b });
    expect(res.status).toBe(201);
    return { digest: sha(b), size: b.length };
  };
  const manifest = {
    schemaVersion: 2,
    mediaType: "application/vnd.oci.image.manifest.v1+json",
    config: { mediaType: "application/vnd.oci.image.config.v1+json", ...(await blob(Buffer.from('{"os":"linux"}'))) },
    layers: [{ mediaType: "application/vnd.oci.image.layer.v1.tar+gzip", ...(await blob(randomBytes(2048))) }],
  };
  for (const tag of ["v1", "latest"]) {
    const res = await fetch(`${base}/v2/${name}/manifests/${tag}`, { method: "PUT", headers: { ...bearer, "Content-Type": manifest.mediaType }, body: JSON.stringify(manifest) });
    expect(res.status).toBe(201);
  }
  return { user, project, name, bearer };
}

describe("container registry page", () => {
  it("shows the repository with its tags and sizes, and deletes a tag after the confirmation", async () => {
    const { user, project, name, bearer } = await projectWithImage();
    const ctx = await pages.newContext();
    const page = await ctx.newPage();
    await signIn(page, base, user.username, user.password, `/${project.path_with_namespace}/container_registry`);
    expect(page.url()).toBe(`${base}/${project.path_with_namespace}/container_registry`);
    const repo = page.getByRole("region", { name: `Repository ${name}` });
    await expect(repo.textContent()).resolves.toContain("2 tags");
    await expect(repo.getByRole("cell", { name: "v1", exact: true }).count()).resolves.toBe(1);
    await shot(page, "container-registry");
    // Dismissing the confirmation keeps the tag; accepting deletes it.
    page.once("dialog", (d) => d.dismiss());
    await repo.getByRole("button", { name: "Delete tag v1" }).click();
    await expect(repo.getByRole("cell", { name: "v1", exact: true }).count()).resolves.toBe(1);
    page.once("dialog", (d) => {
      expect(d.message()).toContain(`Delete the tag ${name}:v1?`);
      d.accept();
    });
    await Promise.all([page.waitForURL(`${base}/${project.path_with_namespace}/container_registry`), repo.getByRole("button", { name: "Delete tag v1" }).click()]);
    expect(await page.textContent("main")).toContain(`The tag ${name}:v1 was deleted.`);
    expect((await fetch(`${base}/v2/${name}/manifests/v1`, { headers: bearer })).status).toBe(404);
    expect((await fetch(`${base}/v2/${name}/manifests/latest`, { headers: bearer })).status).toBe(200);
    await ctx.close();
  });
});

describe("deploy tokens in the project's settings", () => {
  it("creates a token shown once, lists it and revokes it after the confirmation", async () => {
    const { user, project, name } = await projectWithImage();
    const ctx = await pages.newContext();
    const page = await ctx.newPage();
    await signIn(page, base, user.username, user.password, `/${project.path_with_namespace}/-/settings/repository`);
    await page.getByLabel("Name", { exact: true }).fill("ci pull");
    await page.getByLabel("read_registry").check();
    await page.getByRole("button", { name: "Create deploy token" }).click();
    const secret = (await page.textContent("#created-deploy-token"))!.trim();
    const username = (await page.textContent("#deploy-token-username"))!.trim();
    expect(secret).toMatch(/^gldt-/);
    await shot(page, "deploy-token-created");
    const auth = { Authorization: `Basic ${Buffer.from(`${username}:${secret}`).toString("base64")}` };
    const q = `service=container_registry&scope=repository:${name}:pull`;
    expect((await fetch(`${base}/jwt/auth?${q}`, { headers: auth })).status).toBe(200);
    await page.goto(`${base}/${project.path_with_namespace}/-/settings/repository`);
    expect(await page.content()).not.toContain(secret);
    page.once("dialog", (d) => d.accept());
    await Promise.all([page.waitForURL(`${base}/${project.path_with_namespace}/-/settings/repository`), page.getByRole("button", { name: "Revoke ci pull" }).click()]);
    expect(await page.textContent("main")).toContain("The deploy token ci pull was revoked.");
    expect((await fetch(`${base}/jwt/auth?${q}`, { headers: auth })).status).toBe(401);
    await ctx.close();
  });
});
