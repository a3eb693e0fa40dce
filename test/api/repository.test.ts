import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { AccessLevel } from "../../src/domain/access";
import { createProjectRepository } from "../../src/git/provisioning";
import { call, makePat, makeUser } from "../helpers/fixtures";
import { addMember, makeProject } from "../git/fixtures";

/**
 * GitLab's Repository API, read-only (docs/rest-api.md, "Repository"): tree, files, raw, branches
 * and commits of a real repository at the git origin (scripts/git-read.mjs).
 */

const FILES: Record<string, string> = { "README.md": "# Hello\n\nA repository read without cloning.\n", "a.txt": "alpha\n", "b.txt": "beta\n", "c.txt": "gamma\n" };

async function projectWithFiles(opts: { visibility?: "private" | "internal" | "public" } = {}) {
  const { project } = await makeProject({ visibility: opts.visibility });
  const problem = await createProjectRepository(env, project, { message: "Add files\n\nWith a body.", author: { name: "Ada", email: "ada@example.com" }, files: FILES });
  expect(problem).toBeNull();
  const reader = await makeUser();
  await addMember("project", project.id, reader.id, AccessLevel.REPORTER);
  return { project, reader, token: await makePat(reader.id, ["read_api"]) };
}

const repo = (id: number, rest: string) => `/api/v4/projects/${id}/repository/${rest}`;

describe("GitLab Repository API: GET /projects/:id/repository/tree", () => {
  it("lists the root of the default branch as {id, name, type, path, mode}, paginated with X-Total", async () => {
    const { project, token } = await projectWithFiles();
    const res = await call(repo(project.id, "tree?per_page=3"), { token });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-total")).toBe("4");
    expect(res.headers.get("x-next-page")).toBe("2");
    const body = (await res.json()) as { name: string; type: string; path: string; mode: string; id: string }[];
    expect(body).toHaveLength(3);
    expect(body[0]).toEqual({ id: expect.stringMatching(/^[0-9a-f]{40}$/), name: "README.md", type: "blob", path: "README.md", mode: "100644" });
    const second = (await (await call(repo(project.id, "tree?per_page=3&page=2"), { token })).json()) as { name: string }[];
    expect(second.map((e) => e.name)).toEqual(["c.txt"]);
  });

  it("answers 404 Tree Not Found for a ref or path that does not exist", async () => {
    const { project, token } = await projectWithFiles();
    for (const q of ["ref=no-such-branch", "path=missing", "path=README.md"]) {
      const res = await call(repo(project.id, `tree?${q}`), { token });
      expect(res.status, q).toBe(404);
      expect(await res.json()).toEqual({ message: "404 Tree Not Found" });
    }
  });

  it("refuses a ref that is an option or climbs (400 ref is invalid), and a path with .. (400)", async () => {
    const { project, token } = await projectWithFiles();
    const cases: [string, string][] = [
      ["ref=--output%3D%2Ftmp%2Fx", "ref is invalid"],
      ["ref=main..HEAD", "ref is invalid"],
      ["path=..%2F..%2Fetc", "path is invalid"],
    ];
    for (const [q, error] of cases) {
      const res = await call(repo(project.id, `tree?${q}`), { token });
      expect(res.status, q).toBe(400);
      expect(await res.json()).toEqual({ error: error.replace("path", "file_path") });
    }
  });
});

describe("GitLab Repository Files API: GET /projects/:id/repository/files/:file_path", () => {
  it("answers the file's metadata and base64 content at a ref", async () => {
    const { project, token } = await projectWithFiles();
    const res = await call(repo(project.id, "files/README.md?ref=main"), { token });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ file_name: "README.md", file_path: "README.md", size: FILES["README.md"].length, encoding: "base64", ref: "main", execute_filemode: false });
    expect(atob(body.content as string)).toBe(FILES["README.md"]);
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(FILES["README.md"])));
    expect(body.content_sha256).toBe(Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join(""));
    expect(body.commit_id).toMatch(/^[0-9a-f]{40}$/);
    expect(body.last_commit_id).toBe(body.commit_id);
    expect(res.headers.get("x-gitlab-blob-id")).toBe(body.blob_id);
  });

  it("requires ref (400 ref is missing), as GitLab", async () => {
    const { project, token } = await projectWithFiles();
    const res = await call(repo(project.id, "files/README.md"), { token });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: "ref is missing" });
  });

  it("answers 404 File Not Found for a missing file or ref", async () => {
    const { project, token } = await projectWithFiles();
    for (const q of ["files/nope.md?ref=main", "files/README.md?ref=nope"]) {
      const res = await call(repo(project.id, q), { token });
      expect(res.status, q).toBe(404);
      expect(await res.json()).toEqual({ message: "404 File Not Found" });
    }
  });

  it("raw answers the bytes (ref defaults to the default branch), never rendered by a browser", async () => {
    const { project, token } = await projectWithFiles();
    const res = await call(repo(project.id, "files/a.txt/raw"), { token });
    expect(res.status).toBe(200);
    expect(new TextDecoder().decode(await res.arrayBuffer())).toBe("alpha\n");
    expect(res.headers.get("content-type")).toBe("application/octet-stream");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("content-security-policy")).toContain("sandbox");
  });

  it("accepts a token with only read_repository (GitLab's scope text: the Repository Files API)", async () => {
    const { project, reader } = await projectWithFiles();
    const token = await makePat(reader.id, ["read_repository"]);
    expect((await call(repo(project.id, "files/a.txt?ref=main"), { token })).status).toBe(200);
    // The tree is not the Files API: read_repository alone is 403 insufficient_scope there.
    expect((await call(repo(project.id, "tree"), { token })).status).toBe(403);
  });
});

describe("GitLab Repository API: access follows reading code", () => {
  it("a Guest of a private project is refused (403); a stranger does not see it (404); anonymous 401", async () => {
    const { project } = await projectWithFiles();
    const guest = await makeUser();
    await addMember("project", project.id, guest.id, AccessLevel.GUEST);
    expect((await call(repo(project.id, "tree"), { token: await makePat(guest.id, ["read_api"]) })).status).toBe(403);
    const stranger = await makeUser();
    expect((await call(repo(project.id, "files/a.txt?ref=main"), { token: await makePat(stranger.id, ["read_api"]) })).status).toBe(404);
    expect((await call(repo(project.id, "branches"))).status).toBe(401);
  });

  it("any signed-in user reads an internal project's repository", async () => {
    const { project } = await projectWithFiles({ visibility: "internal" });
    const someone = await makeUser();
    expect((await call(repo(project.id, "commits"), { token: await makePat(someone.id, ["read_api"]) })).status).toBe(200);
  });
});

describe("GitLab Branches API: GET /projects/:id/repository/branches", () => {
  it("lists branches with their head commit, default marked, web_url under /-/tree/", async () => {
    const { project, token } = await projectWithFiles();
    const res = await call(repo(project.id, "branches"), { token });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-total")).toBe("1");
    const [main] = (await res.json()) as Record<string, any>[];
    expect(main).toMatchObject({ name: "main", default: true, protected: false, merged: false, can_push: false });
    expect(main!.commit).toMatchObject({ title: "Add files", author_name: "Ada", author_email: "ada@example.com", parent_ids: [] });
    expect(main!.web_url).toBe(`http://localhost/${project.pathWithNamespace}/-/tree/main`);
  });

  it("GET /branches/:branch answers one branch, 404 Branch Not Found for another", async () => {
    const { project, token } = await projectWithFiles();
    expect(((await (await call(repo(project.id, "branches/main"), { token })).json()) as { name: string }).name).toBe("main");
    const res = await call(repo(project.id, "branches/mai"), { token });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ message: "404 Branch Not Found" });
  });

  it("search filters by substring, ^prefix and suffix$", async () => {
    const { project, token } = await projectWithFiles();
    for (const [search, count] of [["ai", 1], ["^ma", 1], ["in$", 1], ["^ai", 0]] as const) {
      const body = (await (await call(repo(project.id, `branches?search=${encodeURIComponent(search)}`), { token })).json()) as unknown[];
      expect(body.length, search).toBe(count);
    }
  });
});

describe("GitLab Commits API: GET /projects/:id/repository/commits", () => {
  it("lists commits newest first in GitLab's shape, without X-Total", async () => {
    const { project, token } = await projectWithFiles();
    const res = await call(repo(project.id, "commits?ref_name=main"), { token });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-total")).toBeNull();
    expect(res.headers.get("x-next-page")).toBe("");
    const [commit] = (await res.json()) as Record<string, any>[];
    expect(commit).toMatchObject({ title: "Add files", message: "Add files\n\nWith a body.\n", author_name: "Ada", committer_email: "ada@example.com" });
    expect(commit!.short_id).toBe(commit!.id.slice(0, 8));
    expect(commit!.web_url).toBe(`http://localhost/${project.pathWithNamespace}/-/commit/${commit!.id}`);
  });

  it("GET /commits/:sha answers one commit with its stats; a branch name works as the sha; 404 Commit Not Found", async () => {
    const { project, token } = await projectWithFiles();
    const byBranch = (await (await call(repo(project.id, "commits/main"), { token })).json()) as Record<string, any>;
    expect(byBranch.stats).toEqual({ additions: 6, deletions: 0, total: 6 });
    const bySha = await call(repo(project.id, `commits/${byBranch.id}`), { token });
    expect(((await bySha.json()) as { id: string }).id).toBe(byBranch.id);
    const missing = await call(repo(project.id, `commits/${"0".repeat(40)}`), { token });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ message: "404 Commit Not Found" });
  });

  it("refuses a since that is not an ISO 8601 time (400)", async () => {
    const { project, token } = await projectWithFiles();
    const res = await call(repo(project.id, "commits?since=yesterday"), { token });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: "since is invalid" });
  });
});
