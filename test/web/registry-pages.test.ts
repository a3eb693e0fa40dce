import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { AccessLevel } from "../../src/domain/access";
import { call } from "../helpers/fixtures";
import { signedInUser, textOf } from "../helpers/browser";
import { addMemberTo } from "../helpers/resources";
import { basicAuth, pushableProject, pushImage, registryCall, tokenResponse } from "../registry/helpers";
import { makePat } from "../helpers/fixtures";

/** Issue 10 pages: the project's container registry and its deploy tokens (Settings → Repository). */
describe("/<project>/container_registry", () => {
  it("lists repositories, tags and sizes; a developer deletes a tag and the repository, which leave /v2/ at once", async () => {
    const { name, token, project } = await pushableProject();
    const img = await pushImage(name, token, "v1", ["page-layer"]);
    const { user, browser } = await signedInUser();
    await addMemberTo("project", project.id, user.id, AccessLevel.DEVELOPER);
    const res = await browser.get(`/${project.pathWithNamespace}/container_registry`);
    expect(res.status).toBe(200);
    expect(res.headers.get("X-Frame-Options")).toBe("DENY");
    const text = textOf(await res.text());
    expect(text).toContain(`${name} 1 tag`);
    expect(text).toContain(`v1 ${img.digest.slice(0, 19)} ${img.totalSize} B`);
    expect(browser.lastHtml).toContain(`data-confirm="Delete the tag ${name}:v1? Pulls of it will fail."`);
    const repoId = /container_registry\/(\d+)\/delete/.exec(browser.lastHtml)![1];
    // Without the form's CSRF token the delete is refused.
    expect((await browser.post(`/${project.pathWithNamespace}/container_registry/${repoId}/tags/v1/delete`, {}, { csrf: false })).status).toBe(403);
    expect((await browser.post(`/${project.pathWithNamespace}/container_registry/${repoId}/tags/v1/delete`, {})).status).toBe(303);
    expect((await registryCall(`/v2/${name}/manifests/v1`, { bearer: token })).status).toBe(404);
    expect(textOf(await (await browser.get(`/${project.pathWithNamespace}/container_registry`)).text())).toContain(`The tag ${name}:v1 was deleted.`);
    expect((await browser.post(`/${project.pathWithNamespace}/container_registry/${repoId}/delete`, {})).status).toBe(303);
    expect(textOf(await (await browser.get(`/${project.pathWithNamespace}/container_registry`)).text())).toContain("No images have been pushed");
  });
  it("a reporter sees no delete buttons and may not delete (403); a stranger gets 404; anonymous goes to sign-in", async () => {
    const { name, token, project } = await pushableProject();
    await pushImage(name, token, "v1");
    const reporter = await signedInUser();
    await addMemberTo("project", project.id, reporter.user.id, AccessLevel.REPORTER);
    const html = await (await reporter.browser.get(`/${project.pathWithNamespace}/container_registry`)).text();
    expect(html).not.toContain("Delete the tag");
    const repoId = (await (await call(`/api/v4/projects/${project.id}/registry/repositories`, { token: await makePat(reporter.user.id) })).json() as { id: number }[])[0].id;
    expect((await reporter.browser.post(`/${project.pathWithNamespace}/container_registry/${repoId}/delete`, {})).status).toBe(403);
    const stranger = await signedInUser();
    expect((await stranger.browser.get(`/${project.pathWithNamespace}/container_registry`)).status).toBe(404);
    const anon = await call(`/${project.pathWithNamespace}/container_registry`, { redirect: "manual" });
    expect(anon.status).toBe(302);
    expect(anon.headers.get("Location")).toContain("/users/sign_in");
  });
});

describe("/<project>/-/settings/repository: deploy tokens", () => {
  it("a maintainer creates a token shown once that works at /jwt/auth, sees it listed, and revokes it", async () => {
    const { project, name } = await pushableProject();
    const { user, browser } = await signedInUser();
    await addMemberTo("project", project.id, user.id, AccessLevel.MAINTAINER);
    await browser.get(`/${project.pathWithNamespace}/-/settings/repository`);
    const created = await browser.post(`/${project.pathWithNamespace}/-/settings/repository/deploy_tokens`, { name: "ci pull", scopes: ["read_registry"], username: "", expires_at: "" });
    expect(created.status).toBe(201);
    const html = await created.text();
    const secret = /<code id="created-deploy-token">(gldt-[0-9a-f]+)<\/code>/.exec(html)![1];
    const username = /<code id="deploy-token-username">([^<]+)<\/code>/.exec(html)![1];
    expect(textOf(html)).toContain("you won't be able to access it again");
    expect((await tokenResponse([`repository:${name}:pull`], basicAuth(username, secret))).status).toBe(200);
    const list = await (await browser.get(`/${project.pathWithNamespace}/-/settings/repository`)).text();
    expect(list).not.toContain(secret);
    expect(textOf(list)).toContain(`ci pull ${username}`);
    const id = /deploy_tokens\/(\d+)\/revoke/.exec(list)![1];
    expect((await browser.post(`/${project.pathWithNamespace}/-/settings/repository/deploy_tokens/${id}/revoke`, {})).status).toBe(303);
    expect((await tokenResponse([`repository:${name}:pull`], basicAuth(username, secret))).status).toBe(401);
  });
  it("refuses a form without scopes with a clear message; a developer may not open the settings (403)", async () => {
    const { project } = await pushableProject();
    const m = await signedInUser();
    await addMemberTo("project", project.id, m.user.id, AccessLevel.MAINTAINER);
    await m.browser.get(`/${project.pathWithNamespace}/-/settings/repository`);
    const bad = await m.browser.post(`/${project.pathWithNamespace}/-/settings/repository/deploy_tokens`, { name: "x" });
    expect(bad.status).toBe(422);
    expect(textOf(await bad.text())).toContain("Scopes can't be blank.");
    const dev = await signedInUser();
    await addMemberTo("project", project.id, dev.user.id, AccessLevel.DEVELOPER);
    expect((await dev.browser.get(`/${project.pathWithNamespace}/-/settings/repository`)).status).toBe(403);
  });
});

describe("the registry page's insecure-registry note", () => {
  it("over plain http it says how to configure Docker and Podman for an insecure registry; over https it is not shown", async () => {
    const { project } = await pushableProject();
    const { user, browser } = await signedInUser();
    await addMemberTo("project", project.id, user.id, AccessLevel.REPORTER);
    const text = textOf(await (await browser.get(`/${project.pathWithNamespace}/container_registry`)).text());
    expect(text).toContain('"insecure-registries": ["localhost"]');
    expect(text).toContain("insecure = true");
    expect(text).toContain("--tls-verify=false");
    const secure = await exports.default.fetch(
      new Request(`https://localhost/${project.pathWithNamespace}/container_registry`, { headers: { Cookie: browser.cookieHeader() } }),
    );
    expect(secure.status).toBe(200);
    const html = await secure.text();
    expect(html).toContain("docker login localhost");
    expect(html).not.toContain("insecure-registries");
  });
});
