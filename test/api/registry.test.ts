import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { getDb } from "../../src/db/client";
import { addTag, createRepository } from "../../src/db/registry";
import { makeUser, makeUserWithToken, TEST_PASSWORD, unique } from "../helpers/fixtures";
import { addMemberTo, makeGroup, makeProject } from "../helpers/resources";
import { callAt } from "../helpers/versioned";

/** Container registry API (spec part b; DESIGN, Registries). */
const owner = await makeUserWithToken();

async function groupWithImage() {
  const group = await makeGroup(owner.user.id);
  const project = await makeProject(owner.user.id, { groupId: group.id, groupPath: group.fullPath });
  const db = getDb(env.DB);
  const repo = await createRepository(db, project.id, project.pathWithNamespace, unique("img"));
  await addTag(db, repo.id, { name: "latest", digest: "sha256:aa", revision: "a".repeat(64), totalSize: 100 });
  await addTag(db, repo.id, { name: "v1", digest: "sha256:bb", revision: "b".repeat(64), totalSize: 50 });
  return { group, project, repo };
}

describe("group-registry-repositories-tags", () => {
  it("tags and tags_count are honoured at 14.10 with a deprecation notice", async () => {
    const { group } = await groupWithImage();
    const res = await callAt("14.10", `/api/v4/groups/${group.id}/registry/repositories?tags=true&tags_count=true`, { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.headers.get("Deprecation")).toBeTruthy();
    const [repo] = (await res.json()) as Record<string, unknown>[];
    expect(repo.tags_count).toBe(2);
    expect((repo.tags as { name: string }[]).map((t) => t.name)).toEqual(["latest", "v1"]);
  });
  it("from 15.0 they are ignored and no tag information is returned", async () => {
    const { group } = await groupWithImage();
    const res = await callAt("15.0", `/api/v4/groups/${group.id}/registry/repositories?tags=true&tags_count=true`, { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.headers.get("Deprecation")).toBeNull();
    const [repo] = (await res.json()) as Record<string, unknown>[];
    expect(repo).not.toHaveProperty("tags");
    expect(repo).not.toHaveProperty("tags_count");
  });
});

describe("GET /registry/repositories/:id remains, with tags, tag_count and size", () => {
  it("returns tags, tags_count and size at 16.0", async () => {
    const { repo } = await groupWithImage();
    const res = await callAt("16.0", `/api/v4/registry/repositories/${repo.id}?tags=true&tag_count=true&size=true`, { token: owner.token });
    expect((await res.json()) as Record<string, any>).toMatchObject({ id: repo.id, tags_count: 2, size: 150, tags: [{ name: "latest" }, { name: "v1" }] });
    const plain = await (await callAt("16.0", `/api/v4/registry/repositories/${repo.id}`, { token: owner.token })).json();
    expect(plain).not.toHaveProperty("tags");
  });
  it("is 404 for a user who cannot see the project", async () => {
    const { repo } = await groupWithImage();
    const stranger = await makeUserWithToken();
    expect((await callAt("16.0", `/api/v4/registry/repositories/${repo.id}`, { token: stranger.token })).status).toBe(404);
  });
});

describe("project repositories and tags: list, get, delete", () => {
  it("lists with tags; lists, gets and deletes tags; deletes the repository (developer, api scope)", async () => {
    const { project, repo } = await groupWithImage();
    const list = await callAt("16.0", `/api/v4/projects/${encodeURIComponent(project.pathWithNamespace)}/registry/repositories?tags=true&tags_count=true`, { token: owner.token });
    expect((await list.json()) as Record<string, any>).toMatchObject([{ id: repo.id, tags_count: 2 }]);
    expect(list.headers.get("X-Total")).toBe("1");
    const tags = await callAt("16.0", `/api/v4/projects/${project.id}/registry/repositories/${repo.id}/tags?per_page=1`, { token: owner.token });
    expect(tags.headers.get("X-Total")).toBe("2");
    expect((await tags.json()) as Record<string, any>).toEqual([{ name: "latest", path: `${repo.path}:latest`, location: `localhost/${repo.path}:latest` }]);
    const tag = await callAt("16.0", `/api/v4/projects/${project.id}/registry/repositories/${repo.id}/tags/v1`, { token: owner.token });
    expect((await tag.json()) as Record<string, any>).toMatchObject({ name: "v1", digest: "sha256:bb", total_size: 50, short_revision: "bbbbbbbbb" });
    const reader = await makeUserWithToken({ scopes: ["read_api"] });
    await addMemberTo("project", project.id, reader.user.id, 30);
    expect((await callAt("16.0", `/api/v4/projects/${project.id}/registry/repositories/${repo.id}/tags/v1`, { method: "DELETE", token: reader.token })).status).toBe(403);
    const reporter = await makeUserWithToken();
    await addMemberTo("project", project.id, reporter.user.id, 20);
    expect((await callAt("16.0", `/api/v4/projects/${project.id}/registry/repositories/${repo.id}/tags/v1`, { method: "DELETE", token: reporter.token })).status).toBe(403);
    expect((await callAt("16.0", `/api/v4/projects/${project.id}/registry/repositories/${repo.id}/tags/v1`, { method: "DELETE", token: owner.token })).status).toBe(200);
    expect((await callAt("16.0", `/api/v4/projects/${project.id}/registry/repositories/${repo.id}/tags/v1`, { token: owner.token })).status).toBe(404);
    expect((await callAt("16.0", `/api/v4/projects/${project.id}/registry/repositories/${repo.id}`, { method: "DELETE", token: owner.token })).status).toBe(202);
    expect((await callAt("16.0", `/api/v4/registry/repositories/${repo.id}`, { token: owner.token })).status).toBe(404);
  });
  it("tags=maybe is a 400 with GitLab's body", async () => {
    const { project } = await groupWithImage();
    const res = await callAt("16.0", `/api/v4/projects/${project.id}/registry/repositories?tags=maybe`, { token: owner.token });
    expect(res.status).toBe(400);
    expect((await res.json()) as Record<string, any>).toEqual({ error: "tags is invalid" });
  });
});

describe("OAuth tokens may get, list and delete (DESIGN, Registries)", () => {
  it("an OAuth access token from the password grant lists repositories and deletes a tag", async () => {
    const { group, project, repo } = await groupWithImage();
    const user = await makeUser();
    await callAt("16.0", `/api/v4/groups/${group.id}/members`, {
      method: "POST",
      body: JSON.stringify({ user_id: user.id, access_level: 30 }),
      headers: { "Content-Type": "application/json" },
      token: owner.token,
    });
    const grant = await callAt("16.0", "/oauth/token", {
      method: "POST",
      body: new URLSearchParams({ grant_type: "password", username: user.username, password: TEST_PASSWORD }),
    });
    expect(grant.status).toBe(200);
    const { access_token } = (await grant.json()) as { access_token: string };
    expect(access_token.startsWith("glpat-")).toBe(false);
    const list = await callAt("16.0", `/api/v4/projects/${project.id}/registry/repositories`, { token: access_token });
    expect(((await list.json()) as { id: number }[]).map((r) => r.id)).toEqual([repo.id]);
    expect((await callAt("16.0", `/api/v4/registry/repositories/${repo.id}`, { token: access_token })).status).toBe(200);
    const del = await callAt("16.0", `/api/v4/projects/${project.id}/registry/repositories/${repo.id}/tags/latest`, { method: "DELETE", token: access_token });
    expect(del.status).toBe(200);
  });
});
