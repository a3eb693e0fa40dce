import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { AccessLevel } from "../../src/domain/access";
import { call, makePat } from "../helpers/fixtures";
import { signedInUser } from "../helpers/browser";
import { addMemberTo } from "../helpers/resources";
import { gql } from "../graphql/helpers";
import { pushableProject, pushImage, registryCall } from "../registry/helpers";

/**
 * DESIGN "Layout", src/services (registry images): REST, GraphQL and the Container registry page
 * delete tags and repositories through one use case, so each deletion writes one audit row, alike
 * on every surface (action, entity, detail keys, the acting user).
 */
interface AuditRow {
  action: string;
  author_id: number | null;
  entity_type: string;
  entity_id: string;
  details: string;
}

const auditOf = async (action: string, repoId: number) =>
  (await env.DB.prepare("SELECT * FROM audit_events WHERE action = ? AND entity_id = ? ORDER BY id").bind(action, String(repoId)).all<AuditRow>()).results;
const shapeOf = (r: AuditRow) => ({ action: r.action, entity_type: r.entity_type, detail_keys: Object.keys(JSON.parse(r.details)).sort() });
const repoIdOf = async (path: string) => (await env.DB.prepare("SELECT id FROM registry_repositories WHERE path = ?").bind(path).first<{ id: number }>())!.id;

describe("registry images: one audit row per deletion, alike from REST, GraphQL and the page", () => {
  it("deleting a tag audits container_repository_tags_deleted naming the tag, with the acting user, on each surface", async () => {
    const p = await pushableProject();
    for (const t of ["rest", "graphql", "page", "keep"]) await pushImage(p.name, p.token, t);
    const repoId = await repoIdOf(p.name);
    const api = await makePat(p.dev.id, ["api"]);
    expect((await call(`/api/v4/projects/${p.project.id}/registry/repositories/${repoId}/tags/rest`, { method: "DELETE", token: api })).status).toBe(200);
    const g = await gql(`mutation($id: ContainerRepositoryID!) { destroyContainerRepositoryTags(input: { id: $id, tagNames: ["graphql", "graphql", "absent"] }) { deletedTagNames errors } }`, {
      variables: { id: `gid://gitlab/ContainerRepository/${repoId}` },
      token: api,
    });
    expect(g.body.data.destroyContainerRepositoryTags.deletedTagNames).toEqual(["graphql"]);
    const { user, browser } = await signedInUser();
    await addMemberTo("project", p.project.id, user.id, AccessLevel.DEVELOPER);
    await browser.get(`/${p.project.pathWithNamespace}/container_registry`);
    expect((await browser.post(`/${p.project.pathWithNamespace}/container_registry/${repoId}/tags/page/delete`, {})).status).toBe(303);
    // An absent tag deletes nothing and audits nothing.
    expect((await call(`/api/v4/projects/${p.project.id}/registry/repositories/${repoId}/tags/absent`, { method: "DELETE", token: api })).status).toBe(404);

    const rows = await auditOf("container_repository_tags_deleted", repoId);
    expect(rows.map((r) => JSON.parse(r.details).tags)).toEqual([["rest"], ["graphql"], ["page"]]);
    expect(rows.map((r) => r.author_id)).toEqual([p.dev.id, p.dev.id, user.id]);
    expect(new Set(rows.map((r) => JSON.stringify(shapeOf(r)))).size).toBe(1);
    expect((await registryCall(`/v2/${p.name}/manifests/keep`, { bearer: p.token })).status).toBe(200);
  });
  it("deleting a repository audits container_repository_deleted once, alike from REST, GraphQL and the page", async () => {
    const surfaces: AuditRow[] = [];
    for (const surface of ["rest", "graphql", "page"] as const) {
      const p = await pushableProject();
      await pushImage(p.name, p.token, "v1");
      const repoId = await repoIdOf(p.name);
      const api = await makePat(p.dev.id, ["api"]);
      if (surface === "rest") expect((await call(`/api/v4/projects/${p.project.id}/registry/repositories/${repoId}`, { method: "DELETE", token: api })).status).toBe(202);
      if (surface === "graphql") {
        const g = await gql(`mutation($id: ContainerRepositoryID!) { destroyContainerRepository(input: { id: $id }) { errors } }`, { variables: { id: `gid://gitlab/ContainerRepository/${repoId}` }, token: api });
        expect(g.body.errors).toBeUndefined();
      }
      if (surface === "page") {
        const { user, browser } = await signedInUser();
        await addMemberTo("project", p.project.id, user.id, AccessLevel.DEVELOPER);
        await browser.get(`/${p.project.pathWithNamespace}/container_registry`);
        expect((await browser.post(`/${p.project.pathWithNamespace}/container_registry/${repoId}/delete`, {})).status).toBe(303);
      }
      const rows = await auditOf("container_repository_deleted", repoId);
      expect(rows).toHaveLength(1);
      expect(JSON.parse(rows[0].details)).toEqual({ path: p.name, project_id: p.project.id });
      expect((await registryCall(`/v2/${p.name}/manifests/v1`, { bearer: p.token })).status).toBe(404);
      surfaces.push(rows[0]);
    }
    expect(new Set(surfaces.map((r) => JSON.stringify(shapeOf(r)))).size).toBe(1);
  });
});
