import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { makePat } from "../helpers/fixtures";
import { pushableProject, pushImage, registryCall, registryToken } from "../registry/helpers";
import { gql } from "./helpers";

/**
 * GitLab's schema: Project.containerRepositories(name:, sort: ContainerRepositorySort),
 * ContainerRepositoryDetails.tags(name:, sort: ContainerRepositoryTagSort), and
 * ContainerRepository.updatedAt, the time a tag was last pushed, moved or deleted.
 */
async function projectWithImages(images: string[]) {
  const p = await pushableProject();
  for (const image of images) {
    const name = image ? `${p.name}/${image}` : p.name;
    const token = await registryToken([`repository:${name}:pull,push,delete`], p.auth);
    await pushImage(name, token, "v1");
  }
  return { ...p, apiToken: await makePat(p.dev.id, ["api"]) };
}

const LIST = `query($path: ID!, $name: String, $sort: ContainerRepositorySort) {
  project(fullPath: $path) { containerRepositories(name: $name, sort: $sort) { count nodes { id name createdAt updatedAt tagsCount } } } }`;
const TAGS = `query($id: ContainerRepositoryID!, $name: String, $sort: ContainerRepositoryTagSort) {
  containerRepository(id: $id) { updatedAt tagsCount tags(name: $name, sort: $sort) { count nodes { name } } } }`;
type Repo = { id: string; name: string; createdAt: string; updatedAt: string; tagsCount: number };

describe("ContainerRepositorySort and the name filter (GitLab's Project.containerRepositories arguments)", () => {
  it("NAME_ASC and NAME_DESC order by name; CREATED_DESC newest first; name: keeps the repositories whose name holds the text, case-insensitively", async () => {
    const { project, apiToken } = await projectWithImages(["beta", "alpha", "gamma-tools"]);
    const list = async (vars: Record<string, unknown>) => {
      const r = await gql(LIST, { variables: { path: project.pathWithNamespace, ...vars }, token: apiToken });
      expect(r.body.errors).toBeUndefined();
      return r.body.data.project.containerRepositories.nodes.map((n: Repo) => n.name);
    };
    expect(await list({ sort: "NAME_ASC" })).toEqual(["alpha", "beta", "gamma-tools"]);
    expect(await list({ sort: "NAME_DESC" })).toEqual(["gamma-tools", "beta", "alpha"]);
    expect(await list({ sort: "CREATED_DESC" })).toEqual(["gamma-tools", "alpha", "beta"]);
    expect(await list({})).toEqual(["beta", "alpha", "gamma-tools"]);
    expect(await list({ name: "A-T" })).toEqual(["gamma-tools"]);
    // LIKE's wildcards in the filter match themselves.
    expect(await list({ name: "_" })).toEqual([]);
  });
  it("UPDATED_DESC puts the repository whose tags changed last first, and updatedAt moves with a push and a tag deletion", async () => {
    const { project, apiToken, name, auth } = await projectWithImages(["one", "two"]);
    const list = async (sort: string) => (await gql(LIST, { variables: { path: project.pathWithNamespace, sort }, token: apiToken })).body.data.project.containerRepositories.nodes as Repo[];
    const before = await list("UPDATED_DESC");
    expect(before.map((r) => r.name)).toEqual(["two", "one"]);
    await new Promise((r) => setTimeout(r, 5));
    const token = await registryToken([`repository:${name}/one:pull,push,delete`], auth);
    await pushImage(`${name}/one`, token, "v2");
    const after = await list("UPDATED_DESC");
    expect(after.map((r) => r.name)).toEqual(["one", "two"]);
    const one = after.find((r) => r.name === "one")!;
    expect(Date.parse(one.updatedAt)).toBeGreaterThan(Date.parse(before.find((r) => r.name === "one")!.updatedAt));
    expect(Date.parse(one.updatedAt)).toBeGreaterThanOrEqual(Date.parse(one.createdAt));
    expect(one.tagsCount).toBe(2);
    expect((await list("UPDATED_ASC")).map((r) => r.name)).toEqual(["two", "one"]);
    await new Promise((r) => setTimeout(r, 5));
    expect((await registryCall(`/v2/${name}/two/manifests/v1`, { method: "DELETE", bearer: await registryToken([`repository:${name}/two:pull,push,delete`], auth) })).status).toBe(202);
    const afterDelete = await list("UPDATED_DESC");
    expect(afterDelete.map((r) => r.name)).toEqual(["two", "one"]);
    expect(afterDelete.find((r) => r.name === "two")!.tagsCount).toBe(0);
  });
  it("an unknown sort value is a GraphQL validation error, not a 500", async () => {
    const { project, apiToken } = await projectWithImages([""]);
    const r = await gql(LIST, { variables: { path: project.pathWithNamespace, sort: "SIZE_DESC" }, token: apiToken });
    expect(r.status).toBeLessThan(500);
    expect(r.body.errors?.[0]?.message).toMatch(/SIZE_DESC/);
  });
});

describe("ContainerRepositoryTagSort and the tag name filter (GitLab's ContainerRepositoryDetails.tags arguments)", () => {
  it("NAME_ASC (the default) and NAME_DESC order the tags; name: filters them; count follows the filter", async () => {
    const p = await pushableProject();
    for (const t of ["v1", "v2", "latest", "v10"]) await pushImage(p.name, p.token, t);
    const apiToken = await makePat(p.dev.id, ["api"]);
    const repos = await gql(LIST, { variables: { path: p.project.pathWithNamespace }, token: apiToken });
    const id = repos.body.data.project.containerRepositories.nodes[0].id;
    const tags = async (vars: Record<string, unknown>) => {
      const r = await gql(TAGS, { variables: { id, ...vars }, token: apiToken });
      expect(r.body.errors).toBeUndefined();
      return r.body.data.containerRepository.tags;
    };
    expect((await tags({})).nodes.map((t: { name: string }) => t.name)).toEqual(["latest", "v1", "v10", "v2"]);
    expect((await tags({ sort: "NAME_DESC" })).nodes.map((t: { name: string }) => t.name)).toEqual(["v2", "v10", "v1", "latest"]);
    const filtered = await tags({ name: "V1" });
    expect(filtered.nodes.map((t: { name: string }) => t.name)).toEqual(["v1", "v10"]);
    expect(filtered.count).toBe(2);
  });
});

describe("the repository row keeps its tag count (triggers on registry_tags)", () => {
  it("tags_count follows tags written and deleted by any writer, REST's tags_count and GraphQL's tagsCount agree", async () => {
    const p = await pushableProject();
    await pushImage(p.name, p.token, "a");
    await pushImage(p.name, p.token, "b");
    const row = await env.DB.prepare("SELECT id, tags_count FROM registry_repositories WHERE path = ?").bind(p.name).first<{ id: number; tags_count: number }>();
    expect(row!.tags_count).toBe(2);
    // A tag moved to another manifest is still one tag.
    await pushImage(p.name, p.token, "a");
    await env.DB.prepare("DELETE FROM registry_tags WHERE repository_id = ? AND name = 'b'").bind(row!.id).run();
    const after = await env.DB.prepare("SELECT tags_count FROM registry_repositories WHERE id = ?").bind(row!.id).first<{ tags_count: number }>();
    expect(after!.tags_count).toBe(1);
  });
});
