import { describe, expect, it } from "vitest";
import { decodePathSegment } from "../../src/http/path-decoding";
import { Browser, signedInUser } from "../helpers/browser";
import { call, json, makeUserWithToken } from "../helpers/fixtures";
import { makeGroup, makeProject } from "../helpers/resources";
import { pushableProject, pushImage, registryCall } from "../registry/helpers";

/*
 * DESIGN, Hardening: "malformed percent-encoding ... gets a 4xx in the family's shape", through the
 * one path decoder (src/http/path-decoding.ts): the raw path is checked once, before routing; a
 * route reads its parameters decoded once by the router and never decodes them again.
 */
const MALFORMED = ["%E0%A4%A", "%", "%zz", "%C0%AF", "%FF", "%ED%A0%80"];

const owner = await makeUserWithToken();
const group = await makeGroup(owner.user.id);
const project = await makeProject(owner.user.id, { groupId: group.id, groupPath: group.fullPath });
const deploy = (await (await call(`/api/v4/projects/${project.id}/deploy_tokens`, { ...json({ name: "d", scopes: ["write_package_registry", "read_package_registry"] }), token: owner.token })).json()) as {
  token: string;
  username: string;
};
const deployHeaders: Record<string, string>[] = [{ "DEPLOY-TOKEN": deploy.token }, { Authorization: `Basic ${btoa(`${deploy.username}:${deploy.token}`)}` }];

describe("path decoder: the rule (RFC 3986 §2.1 percent-encoding of UTF-8, WHATWG URL percent-decode)", () => {
  it.each(MALFORMED)("%j is malformed", (raw) => expect(decodePathSegment(raw)).toBeNull());
  it.each([
    ["a%2Fb", "a/b"],
    ["%25zz", "%zz"],
    ["caf%C3%A9", "café"],
    ["plain", "plain"],
  ])("%j decodes once to %j", (raw, decoded) => expect(decodePathSegment(raw)).toBe(decoded));
});

describe("container registry (OCI distribution spec, Error Codes): a malformed escape is a 4xx in the registry's shape", () => {
  it.each(MALFORMED)("GET and HEAD /v2/<name>/manifests/%s with a pull token", async (ref) => {
    const { name, token } = await pushableProject();
    for (const method of ["GET", "HEAD"]) {
      const res = await registryCall(`/v2/${name}/manifests/${ref}`, { method, bearer: token });
      expect(res.status, method).toBe(400);
      if (method === "GET") expect(((await res.json()) as { errors: { code: string }[] }).errors[0].code).toBe("NAME_INVALID");
    }
  });

  it("a tag that needs escaping is read under the name it was pushed with (decoded once)", async () => {
    const { name, token } = await pushableProject();
    await pushImage(name, token, "v1.0");
    expect((await registryCall(`/v2/${name}/manifests/v1%2E0`, { bearer: token })).status).toBe(200);
  });
});

describe("package registry with a deploy token (GitLab generic packages): the project id is decoded once", () => {
  it.each(deployHeaders)("%o: /projects/%25zz/... is 404 Project Not Found, a malformed id is 400, in the REST shape", async (headers) => {
    const notFound = await call(`/api/v4/projects/%25zz/packages/generic/tool/1.0.0/f.bin`, { headers });
    expect(notFound.status).toBe(404);
    expect(await notFound.json()).toEqual({ message: "404 Project Not Found" });
    for (const bad of MALFORMED) {
      const res = await call(`/api/v4/projects/${bad}/packages/generic/tool/1.0.0/f.bin`, { headers });
      expect(res.status, bad).toBe(400);
      expect(((await res.json()) as { message: string }).message).toMatch(/^400 Bad request/);
    }
  });

  it.each(deployHeaders)("%o: the project's URL-encoded path works as its id does (one decode, not two)", async (headers) => {
    const encoded = encodeURIComponent(project.pathWithNamespace);
    const put = await call(`/api/v4/projects/${encoded}/packages/generic/tool/1.0.0/f.bin`, { method: "PUT", body: "bytes", headers });
    expect(put.status).toBe(201);
    const get = await call(`/api/v4/projects/${project.id}/packages/generic/tool/1.0.0/f.bin`, { headers });
    expect(await get.text()).toBe("bytes");
  });
});

describe("every family answers a malformed escape with 400 in its own shape", () => {
  const cases: [string, string, (res: Response) => Promise<void>][] = [
    ["REST", "/api/v4/projects/%zz", async (res) => expect(((await res.json()) as { message: string }).message).toMatch(/^400 Bad request/)],
    ["GraphQL", "/api/graphql/%zz", async (res) => expect(Array.isArray(((await res.json()) as { errors: unknown }).errors)).toBe(true)],
    ["OAuth", "/oauth/token/%zz", async (res) => expect(((await res.json()) as { error: string }).error).toBe("invalid_request")],
    ["registry", "/v2/%zz/tags/list", async (res) => expect(((await res.json()) as { errors: { code: string }[] }).errors[0].code).toBe("NAME_INVALID")],
    ["token service", "/jwt/%zz", async (res) => expect(Array.isArray(((await res.json()) as { errors: unknown }).errors)).toBe(true)],
    ["Plugin RPC", "/proto.Plugin/%zz", async (res) => expect(((await res.json()) as { code: string }).code).toBe("invalid_argument")],
    ["git", `/${group.fullPath}/%zz.git/info/refs`, async (res) => expect(res.headers.get("content-type")).toMatch(/^text\/plain/)],
    ["pages", "/profile/%zz", async (res) => expect(res.headers.get("content-type")).toMatch(/^text\/html/)],
  ];
  it.each(cases)("%s: %s", async (_family, path, check) => {
    const res = await call(path, { token: owner.token });
    expect(res.status).toBe(400);
    await check(res);
  });
});

describe("pages: a container registry tag is decoded once", () => {
  it("deleting a tag named with an escaped % answers below 500", async () => {
    const { browser } = await signedInUser(new Browser());
    await browser.get("/");
    const res = await browser.post(`/${project.pathWithNamespace}/-/container_registry/1/tags/%25zz/delete`, {});
    expect(res.status).toBeLessThan(500);
  });
});
