import { describe, expect, it } from "vitest";
import { AccessLevel } from "../../src/domain/access";
import { call, makePat, makeUser } from "../helpers/fixtures";
import { addMemberTo } from "../helpers/resources";
import { pushableProject, pushImage, registryCall } from "../registry/helpers";
import { gql } from "./helpers";

/**
 * GraphQL for what REST gained (GitLab's names): Project.containerRepositories, Query.containerRepository
 * with tags and size, destroyContainerRepository and destroyContainerRepositoryTags, gated by the
 * REST registry API's abilities (read_container_image, destroy_container_image) and acting on the
 * real registry (DESIGN, Registries: a delete through the API is gone from /v2/ at once).
 */
async function imageWithTags(tags = ["v1", "v2"]) {
  const p = await pushableProject();
  const pushed = [];
  for (const t of tags) pushed.push(await pushImage(p.name, p.token, t));
  const apiToken = await makePat(p.dev.id, ["api"]);
  return { ...p, pushed, apiToken };
}

const REPOS = `query($path: ID!) { project(fullPath: $path) { containerRepositoriesCount containerRepositories { count nodes { id name path location tagsCount canDelete project { fullPath } } } } }`;
const DETAILS = `query($id: ContainerRepositoryID!) { containerRepository(id: $id) { id path size tagsCount tags { count nodes { name path location digest revision shortRevision totalSize createdAt canDelete } } } }`;

describe("Project.containerRepositories and Query.containerRepository: the repositories /v2/ holds, with tags and size", () => {
  it("lists the pushed repository with its tag count, and its details agree with REST's GET /registry/repositories/:id?tags=true&size=true", async () => {
    const { project, name, pushed, apiToken } = await imageWithTags();
    const r = await gql(REPOS, { variables: { path: project.pathWithNamespace }, token: apiToken });
    expect(r.body.errors).toBeUndefined();
    const conn = r.body.data.project.containerRepositories;
    expect(conn.count).toBe(1);
    expect(r.body.data.project.containerRepositoriesCount).toBe(1);
    const [repo] = conn.nodes;
    expect(repo).toMatchObject({ name: "", path: name, location: `localhost/${name}`, tagsCount: 2, canDelete: true, project: { fullPath: project.pathWithNamespace } });
    expect(repo.id).toMatch(/^gid:\/\/gitlab\/ContainerRepository\/\d+$/);

    const d = await gql(DETAILS, { variables: { id: repo.id }, token: apiToken });
    expect(d.body.errors).toBeUndefined();
    const details = d.body.data.containerRepository;
    const rest = (await (await call(`/api/v4/registry/repositories/${repo.id.split("/").pop()}?tags=true&tag_count=true&size=true`, { token: apiToken })).json()) as Record<string, unknown>;
    expect(details.size).toBe(rest.size);
    expect(details.size).toBe(pushed.reduce((n, p) => n + p.totalSize, 0));
    expect(details.tags.count).toBe(2);
    expect(details.tags.nodes.map((t: { name: string }) => t.name)).toEqual((rest.tags as { name: string }[]).map((t) => t.name));
    expect(details.tags.nodes[0]).toMatchObject({
      name: "v1",
      path: `${name}:v1`,
      location: `localhost/${name}:v1`,
      digest: pushed[0].digest,
      revision: pushed[0].configDigest.slice("sha256:".length),
      shortRevision: pushed[0].configDigest.slice("sha256:".length, "sha256:".length + 9),
      totalSize: String(pushed[0].totalSize),
      canDelete: true,
    });
  });

  it("reading follows REST's rule: a guest of a private project gets null where REST answers 404; a reporter reads but may not delete", async () => {
    const { project, apiToken } = await imageWithTags(["v1"]);
    const repoId = (await gql(REPOS, { variables: { path: project.pathWithNamespace }, token: apiToken })).body.data.project.containerRepositories.nodes[0].id;
    for (const [level, readable] of [
      [AccessLevel.GUEST, false],
      [AccessLevel.REPORTER, true],
    ] as const) {
      const user = await makeUser();
      await addMemberTo("project", project.id, user.id, level);
      const token = await makePat(user.id, ["api"]);
      const rest = await call(`/api/v4/projects/${project.id}/registry/repositories`, { token });
      expect(rest.status === 200, `REST at level ${level}`).toBe(readable);
      const list = await gql(REPOS, { variables: { path: project.pathWithNamespace }, token });
      expect(list.body.data.project.containerRepositories === null, `GraphQL list at level ${level}`).toBe(!readable);
      const one = await gql(DETAILS, { variables: { id: repoId }, token });
      expect(one.body.data.containerRepository === null, `GraphQL details at level ${level}`).toBe(!readable);
      if (readable) expect(list.body.data.project.containerRepositories.nodes[0].canDelete).toBe(false);
    }
  });
});

describe("destroyContainerRepositoryTags and destroyContainerRepository: destroy_container_image (developer), gone from /v2/ at once", () => {
  const DESTROY_TAGS = `mutation($id: ContainerRepositoryID!, $names: [String!]!) { destroyContainerRepositoryTags(input: { id: $id, tagNames: $names }) { deletedTagNames errors } }`;
  const DESTROY = `mutation($id: ContainerRepositoryID!) { destroyContainerRepository(input: { id: $id }) { containerRepository { id path } errors } }`;

  async function repoIdOf(path: string, token: string) {
    return (await gql(REPOS, { variables: { path }, token })).body.data.project.containerRepositories.nodes[0].id as string;
  }

  it("a reporter is refused with GitLab's resource-not-available error (REST: 403) and nothing is deleted", async () => {
    const { project, name, token, apiToken } = await imageWithTags(["v1"]);
    const id = await repoIdOf(project.pathWithNamespace, apiToken);
    const reporter = await makeUser();
    await addMemberTo("project", project.id, reporter.id, AccessLevel.REPORTER);
    const rt = await makePat(reporter.id, ["api"]);
    const restDelete = await call(`/api/v4/projects/${project.id}/registry/repositories/${id.split("/").pop()}/tags/v1`, { method: "DELETE", token: rt });
    expect(restDelete.status).toBe(403);
    for (const [query, vars] of [
      [DESTROY_TAGS, { id, names: ["v1"] }],
      [DESTROY, { id }],
    ] as const) {
      const r = await gql(query, { variables: vars, token: rt });
      expect(r.body.errors[0].extensions.code).toBe("RESOURCE_NOT_AVAILABLE");
    }
    expect((await registryCall(`/v2/${name}/manifests/v1`, { bearer: token, headers: { Accept: "application/vnd.oci.image.manifest.v1+json" } })).status).toBe(200);
  });

  it("a developer deletes tags: the deleted names are answered, unknown names left out, and /v2/ no longer serves the tag", async () => {
    const { project, name, token, apiToken } = await imageWithTags(["v1", "v2"]);
    const id = await repoIdOf(project.pathWithNamespace, apiToken);
    const r = await gql(DESTROY_TAGS, { variables: { id, names: ["v1", "nope"] }, token: apiToken });
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data.destroyContainerRepositoryTags).toEqual({ deletedTagNames: ["v1"], errors: [] });
    const accept = { Accept: "application/vnd.oci.image.manifest.v1+json" };
    expect((await registryCall(`/v2/${name}/manifests/v1`, { bearer: token, headers: accept })).status).toBe(404);
    expect((await registryCall(`/v2/${name}/manifests/v2`, { bearer: token, headers: accept })).status).toBe(200);
    const d = await gql(DETAILS, { variables: { id }, token: apiToken });
    expect(d.body.data.containerRepository.tags.nodes.map((t: { name: string }) => t.name)).toEqual(["v2"]);
  });

  it("more than 20 tag names are refused as GitLab does", async () => {
    const { project, apiToken } = await imageWithTags(["v1"]);
    const id = await repoIdOf(project.pathWithNamespace, apiToken);
    const r = await gql(DESTROY_TAGS, { variables: { id, names: Array.from({ length: 21 }, (_, i) => `t${i}`) }, token: apiToken });
    expect(r.body.errors[0].message).toBe("Number of tags is greater than 20");
  });

  it("a developer deletes the repository: /v2/ answers NAME_UNKNOWN and the project lists none", async () => {
    const { project, name, token, apiToken } = await imageWithTags(["v1"]);
    const id = await repoIdOf(project.pathWithNamespace, apiToken);
    const r = await gql(DESTROY, { variables: { id }, token: apiToken });
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data.destroyContainerRepository).toEqual({ containerRepository: { id, path: name }, errors: [] });
    const tags = await registryCall(`/v2/${name}/tags/list`, { bearer: token });
    expect(tags.status).toBe(404);
    expect(((await tags.json()) as { errors: { code: string }[] }).errors[0].code).toBe("NAME_UNKNOWN");
    const after = await gql(REPOS, { variables: { path: project.pathWithNamespace }, token: apiToken });
    expect(after.body.data.project.containerRepositories.count).toBe(0);
  });

  it("mutations need the api scope: a read_api token gets INSUFFICIENT_SCOPE", async () => {
    const { project, dev, apiToken } = await imageWithTags(["v1"]);
    const id = await repoIdOf(project.pathWithNamespace, apiToken);
    const readOnly = await makePat(dev.id, ["read_api"]);
    const r = await gql(DESTROY, { variables: { id }, token: readOnly });
    expect(r.body.errors[0].extensions.code).toBe("INSUFFICIENT_SCOPE");
    expect(await repoIdOf(project.pathWithNamespace, apiToken)).toBe(id);
  });
});
