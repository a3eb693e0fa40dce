import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import app from "../../src/app";
import { withVars } from "../../src/config";
import { AccessLevel } from "../../src/domain/access";
import { makePat, makeUser, makeUserWithToken, TEST_PASSWORD } from "../helpers/fixtures";
import { addMember, basic, gitRequest, makeProject, oauthToken, pktLine } from "./fixtures";

const UPLOAD_ADV = "application/x-git-upload-pack-advertisement";
const RECEIVE_ADV = "application/x-git-receive-pack-advertisement";

const refs = (path: string, service: "git-upload-pack" | "git-receive-pack") => `/${path}.git/info/refs?service=${service}`;

async function memberWithToken(projectId: number, level: number, scopes: string[]) {
  const user = await makeUser();
  await addMember("project", projectId, user.id, level);
  return { user, token: await makePat(user.id, scopes) };
}

describe("spec Git over HTTPS: an OAuth token is the password, with the literal user name oauth2", () => {
  it("fetches and pushes with oauth2:<OAuth access token> (password grant, scope api)", async () => {
    const { project } = await makeProject();
    const user = await makeUser();
    await addMember("project", project.id, user.id, AccessLevel.DEVELOPER);
    const token = await oauthToken(user.username, TEST_PASSWORD);
    for (const service of ["git-upload-pack", "git-receive-pack"] as const) {
      const res = await gitRequest(refs(project.pathWithNamespace, service), { auth: basic("oauth2", token) });
      expect(res.status, service).toBe(200);
      await res.body?.cancel();
    }
  });

  it("refuses an OAuth token sent under any other user name (401), even the owner's", async () => {
    const { project } = await makeProject();
    const user = await makeUser();
    await addMember("project", project.id, user.id, AccessLevel.DEVELOPER);
    const token = await oauthToken(user.username, TEST_PASSWORD);
    for (const name of [user.username, "git", "OAUTH2"]) {
      const res = await gitRequest(refs(project.pathWithNamespace, "git-upload-pack"), { auth: basic(name, token) });
      expect(res.status, name).toBe(401);
    }
  });

  it("an OAuth token with read_repository fetches but may not push (403)", async () => {
    const { project } = await makeProject();
    const user = await makeUser();
    await addMember("project", project.id, user.id, AccessLevel.DEVELOPER);
    const token = await oauthToken(user.username, TEST_PASSWORD, "read_repository");
    const fetchRes = await gitRequest(refs(project.pathWithNamespace, "git-upload-pack"), { auth: basic("oauth2", token) });
    expect(fetchRes.status).toBe(200);
    await fetchRes.body?.cancel();
    const pushRes = await gitRequest(refs(project.pathWithNamespace, "git-receive-pack"), { auth: basic("oauth2", token) });
    expect(pushRes.status).toBe(403);
  });
});

describe("DESIGN Git over HTTPS: fetch with a personal access token (read_repository or api)", () => {
  it("serves the upload-pack advertisement of a nested-group project to a reporter with read_repository, under any user name", async () => {
    const { project } = await makeProject({ depth: 3 });
    const { token } = await memberWithToken(project.id, AccessLevel.REPORTER, ["read_repository"]);
    const res = await gitRequest(refs(project.pathWithNamespace, "git-upload-pack"), { auth: basic("anything", token) });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe(UPLOAD_ADV);
    expect(new TextDecoder().decode(await res.arrayBuffer())).toContain("# service=git-upload-pack");
  });

  it("accepts api and write_repository for fetch, and the owner's own user name", async () => {
    const { project } = await makeProject();
    for (const scopes of [["api"], ["write_repository"]]) {
      const { user, token } = await memberWithToken(project.id, AccessLevel.DEVELOPER, scopes);
      const res = await gitRequest(refs(project.pathWithNamespace, "git-upload-pack"), { auth: basic(user.username, token) });
      expect(res.status, scopes.join()).toBe(200);
      await res.body?.cancel();
    }
  });

  it("inherits access from an ancestor group", async () => {
    const { project, group } = await makeProject({ depth: 2 });
    const user = await makeUser();
    await addMember("group", group.id, user.id, AccessLevel.REPORTER);
    const res = await gitRequest(refs(project.pathWithNamespace, "git-upload-pack"), { auth: basic("x", await makePat(user.id, ["read_repository"])) });
    expect(res.status).toBe(200);
    await res.body?.cancel();
  });

  it("streams POST git-upload-pack (gzip body, Git-Protocol) to the origin and back", async () => {
    const { project } = await makeProject();
    const { token } = await memberWithToken(project.id, AccessLevel.REPORTER, ["read_repository"]);
    // A request of only a flush-pkt, gzip-compressed as git sends large negotiations.
    const body = new Blob(["0000"]).stream().pipeThrough(new CompressionStream("gzip"));
    const res = await gitRequest(`/${project.pathWithNamespace}.git/git-upload-pack`, {
      method: "POST",
      auth: basic("oauth2", token),
      headers: { "Content-Type": "application/x-git-upload-pack-request", "Content-Encoding": "gzip", "Git-Protocol": "version=0" },
      body,
      // @ts-expect-error workerd's RequestInit has no duplex, but streamed bodies are sent as is
      duplex: "half",
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/x-git-upload-pack-result");
    await res.body?.cancel();
  });

  it("reaches the same repository whatever the case of the URL (the origin sees the canonical path)", async () => {
    const { project } = await makeProject();
    const { token } = await memberWithToken(project.id, AccessLevel.REPORTER, ["read_repository"]);
    const res = await gitRequest(refs(project.pathWithNamespace.toUpperCase(), "git-upload-pack"), { auth: basic("u", token) });
    expect(res.status).toBe(200);
    await res.body?.cancel();
  });

  it("answers 20 concurrent first requests for a new project (the origin creates the bare repository once)", async () => {
    const { project } = await makeProject();
    const { token } = await memberWithToken(project.id, AccessLevel.REPORTER, ["read_repository"]);
    const results = await Promise.all(
      Array.from({ length: 20 }, async () => {
        const res = await gitRequest(refs(project.pathWithNamespace, "git-upload-pack"), { auth: basic("u", token) });
        await res.body?.cancel();
        return res.status;
      }),
    );
    expect(results).toEqual(Array(20).fill(200));
  });
});

describe("DESIGN Git over HTTPS: push needs write_repository or api, and developer access", () => {
  it("serves the receive-pack advertisement to a developer with write_repository (the origin learns the user)", async () => {
    const { project } = await makeProject();
    const { token } = await memberWithToken(project.id, AccessLevel.DEVELOPER, ["write_repository"]);
    const res = await gitRequest(refs(project.pathWithNamespace, "git-receive-pack"), { auth: basic("u", token) });
    // git http-backend refuses receive-pack (403) unless REMOTE_USER is set: 200 proves the gateway named the user.
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe(RECEIVE_ADV);
    await res.body?.cancel();
  });

  it("streams POST git-receive-pack with api scope", async () => {
    const { project } = await makeProject();
    const { token } = await memberWithToken(project.id, AccessLevel.MAINTAINER, ["api"]);
    const res = await gitRequest(`/${project.pathWithNamespace}.git/git-receive-pack`, {
      method: "POST",
      auth: basic("u", token),
      headers: { "Content-Type": "application/x-git-receive-pack-request" },
      body: "0000",
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/x-git-receive-pack-result");
    await res.body?.cancel();
  });

  it("refuses push with a read_repository token: 403", async () => {
    const { project } = await makeProject();
    const { token } = await memberWithToken(project.id, AccessLevel.MAINTAINER, ["read_repository"]);
    for (const req of [
      () => gitRequest(refs(project.pathWithNamespace, "git-receive-pack"), { auth: basic("u", token) }),
      () => gitRequest(`/${project.pathWithNamespace}.git/git-receive-pack`, { method: "POST", auth: basic("u", token), body: "0000" }),
    ]) {
      const res = await req();
      expect(res.status).toBe(403);
      expect(await res.text()).toContain("You are not allowed to push code to this project.");
    }
  });

  it("refuses push by a reporter even with write_repository: 403", async () => {
    const { project } = await makeProject();
    const { token } = await memberWithToken(project.id, AccessLevel.REPORTER, ["write_repository"]);
    const res = await gitRequest(refs(project.pathWithNamespace, "git-receive-pack"), { auth: basic("u", token) });
    expect(res.status).toBe(403);
  });

  it("lets an administrator push anywhere", async () => {
    const { project } = await makeProject();
    const { token } = await makeUserWithToken({ isAdmin: true, scopes: ["write_repository"] });
    const res = await gitRequest(refs(project.pathWithNamespace, "git-receive-pack"), { auth: basic("root", token) });
    expect(res.status).toBe(200);
    await res.body?.cancel();
  });
});

describe("DESIGN Git over HTTPS: bad credentials → 401 with a Basic challenge", () => {
  it("answers a bad token with 401 and WWW-Authenticate: Basic", async () => {
    const { project } = await makeProject();
    for (const auth of [basic("oauth2", "not-a-token"), basic("u", "glpat-unknownunknownunknown"), basic("u", ""), "Basic !!!"]) {
      const res = await gitRequest(refs(project.pathWithNamespace, "git-upload-pack"), { auth });
      expect(res.status, auth).toBe(401);
      expect(res.headers.get("www-authenticate")).toBe('Basic realm="GitLab"');
      expect(await res.text()).toContain("HTTP Basic: Access denied");
    }
  });

  it("answers missing credentials on a private project with 401 (git then asks for them)", async () => {
    const { project } = await makeProject();
    const res = await gitRequest(refs(project.pathWithNamespace, "git-upload-pack"));
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe('Basic realm="GitLab"');
  });

  it("answers an expired personal access token with 401", async () => {
    const { project } = await makeProject();
    const user = await makeUser();
    await addMember("project", project.id, user.id, AccessLevel.DEVELOPER);
    const token = await makePat(user.id, ["api"], "2020-01-01");
    const res = await gitRequest(refs(project.pathWithNamespace, "git-upload-pack"), { auth: basic("u", token) });
    expect(res.status).toBe(401);
  });

  it("answers a token without any repository scope (read_api) with 401, as GitLab", async () => {
    const { project } = await makeProject();
    const { token } = await memberWithToken(project.id, AccessLevel.DEVELOPER, ["read_api"]);
    const res = await gitRequest(refs(project.pathWithNamespace, "git-upload-pack"), { auth: basic("u", token) });
    expect(res.status).toBe(401);
  });

  it("answers a bad token with 401 even for an unknown project (credentials are checked first)", async () => {
    const res = await gitRequest(refs("nobody/nothing", "git-upload-pack"), { auth: basic("oauth2", "bogus") });
    expect(res.status).toBe(401);
  });
});

describe("DESIGN Git over HTTPS: unknown or invisible project → 404", () => {
  it("answers an unknown project with 404", async () => {
    const { token } = await makeUserWithToken({ scopes: ["read_repository"] });
    const res = await gitRequest(refs("no-such-group/no-such-project", "git-upload-pack"), { auth: basic("u", token) });
    expect(res.status).toBe(404);
    expect(await res.text()).toContain("could not be found");
  });

  it("answers a private project the user is not a member of with the same 404 (existence not revealed)", async () => {
    const { project } = await makeProject();
    const { token } = await makeUserWithToken({ scopes: ["api"] });
    for (const service of ["git-upload-pack", "git-receive-pack"] as const) {
      const res = await gitRequest(refs(project.pathWithNamespace, service), { auth: basic("u", token) });
      expect(res.status).toBe(404);
    }
  });

  it("answers a guest of a private project (sees it, may not read its code) with 403, as the Repository API does", async () => {
    const { project } = await makeProject();
    const { token } = await memberWithToken(project.id, AccessLevel.GUEST, ["api"]);
    const res = await gitRequest(refs(project.pathWithNamespace, "git-upload-pack"), { auth: basic("u", token) });
    expect(res.status).toBe(403);
    expect(await res.text()).toBe("You are not allowed to download code from this project.\n");
  });
});

describe("DESIGN Git over HTTPS: public and internal projects", () => {
  it("lets anyone fetch a public project without credentials, but never push", async () => {
    const { project } = await makeProject({ visibility: "public" });
    const fetchRes = await gitRequest(refs(project.pathWithNamespace, "git-upload-pack"));
    expect(fetchRes.status).toBe(200);
    await fetchRes.body?.cancel();
    const pushRes = await gitRequest(refs(project.pathWithNamespace, "git-receive-pack"));
    expect(pushRes.status).toBe(401);
  });

  it("lets any signed-in user fetch an internal project, and refuses its push to non-members (403)", async () => {
    const { project } = await makeProject({ visibility: "internal" });
    expect((await gitRequest(refs(project.pathWithNamespace, "git-upload-pack"))).status).toBe(401);
    const { token } = await makeUserWithToken({ scopes: ["write_repository"] });
    const fetchRes = await gitRequest(refs(project.pathWithNamespace, "git-upload-pack"), { auth: basic("u", token) });
    expect(fetchRes.status).toBe(200);
    await fetchRes.body?.cancel();
    const pushRes = await gitRequest(refs(project.pathWithNamespace, "git-receive-pack"), { auth: basic("u", token) });
    expect(pushRes.status).toBe(403);
  });
});

describe("DESIGN Git over HTTPS: protocol and origin", () => {
  it("refuses the dumb protocol (info/refs without a service) with 403", async () => {
    const { project } = await makeProject({ visibility: "public" });
    const res = await gitRequest(`/${project.pathWithNamespace}.git/info/refs`);
    expect(res.status).toBe(403);
  });

  it("redirects a clone URL without .git to the .git one (301), keeping the service parameter", async () => {
    const res = await gitRequest("/some/group/project/info/refs?service=git-upload-pack", { redirect: "manual" });
    expect(res.status).toBe(301);
    expect(res.headers.get("location")).toBe("/some/group/project.git/info/refs?service=git-upload-pack");
    // Never a redirect off this origin.
    for (const path of ["//evil.example/x/info/refs?service=git-upload-pack", "/a/../b/info/refs"]) {
      const other = await gitRequest(path, { redirect: "manual" });
      expect(other.status, path).toBe(404);
    }
  });

  it("answers 503 in git's plain-text shape when no origin is configured", async () => {
    const { project } = await makeProject({ visibility: "public" });
    const ctx = createExecutionContext();
    const res = await app.fetch(new Request(`http://localhost${refs(project.pathWithNamespace, "git-upload-pack")}`), withVars(env, { GIT_ORIGIN: "" }), ctx);
    await waitOnExecutionContext(ctx);
    expect(res.status).toBe(503);
    expect(res.headers.get("content-type")).toContain("text/plain");
    expect(await res.text()).not.toMatch(/at .*\.ts/);
  });

  // workerd logs a caught connection failure as "Network connection lost"; the answer is still a 502.
  it("answers 502 when the origin is unreachable", async () => {
    const { project } = await makeProject({ visibility: "public" });
    const ctx = createExecutionContext();
    const res = await app.fetch(new Request(`http://localhost${refs(project.pathWithNamespace, "git-upload-pack")}`), withVars(env, { GIT_ORIGIN: "http://127.0.0.1:9" }), ctx);
    await waitOnExecutionContext(ctx);
    expect(res.status).toBe(502);
  });

  it("a repeated service parameter is refused with 400, so a reader cannot be authorized for fetch and served receive-pack", async () => {
    const { project } = await makeProject();
    const { token } = await memberWithToken(project.id, AccessLevel.REPORTER, ["read_repository"]);
    for (const query of ["service=git-upload-pack&service=git-receive-pack", "service=git-upload-pack&%73ervice=git-receive-pack", "service=git-receive-pack&service=git-upload-pack"]) {
      const res = await gitRequest(`/${project.pathWithNamespace}.git/info/refs?${query}`, { auth: basic("reader", token) });
      expect(res.status, query).toBe(400);
      expect(res.headers.get("content-type"), query).toContain("text/plain");
      expect(await res.text(), query).toMatch(/service parameter once/);
    }
  });

  it("pkt-line framing of the advertisement is intact after the proxy", async () => {
    const { project } = await makeProject({ visibility: "public" });
    const res = await gitRequest(refs(project.pathWithNamespace, "git-upload-pack"));
    const text = new TextDecoder().decode(await res.arrayBuffer());
    expect(text.startsWith(pktLine("# service=git-upload-pack\n") + "0000")).toBe(true);
  });
});

describe("throttle of failed Basic credentials on git per client address (DESIGN Hardening)", () => {
  it("after 30 failed credentials from one address: 429 'Retry later' with Retry-After and RateLimit-*; valid tokens and other addresses unaffected", async () => {
    const { project } = await makeProject();
    const user = await makeUser();
    await addMember("project", project.id, user.id, AccessLevel.DEVELOPER);
    const token = await oauthToken(user.username, TEST_PASSWORD);
    const path = refs(project.pathWithNamespace, "git-upload-pack");
    const attacker = { "CF-Connecting-IP": "203.0.113.70" };
    for (let i = 0; i < 30; i++) {
      const res = await gitRequest(path, { auth: basic("someone", `glpat-guess-${i}`), headers: attacker });
      expect(res.status).toBe(401);
    }
    const refused = await gitRequest(path, { auth: basic("someone", "glpat-guess-again"), headers: attacker });
    expect(refused.status).toBe(429);
    expect(await refused.text()).toBe("Retry later\n");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(refused.headers.get("ratelimit-remaining")).toBe("0");
    expect((await gitRequest(path, { auth: basic("oauth2", token), headers: attacker })).status).toBe(200);
    expect((await gitRequest(path, { auth: basic("someone", "glpat-guess"), headers: { "CF-Connecting-IP": "198.51.100.70" } })).status).toBe(401);
  });
});
