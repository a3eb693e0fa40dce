import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { AccessLevel } from "../../src/domain/access";
import { call, json, makePat, makeUserWithToken, unique } from "../helpers/fixtures";
import { signedInUser } from "../helpers/browser";
import { sshTestKey } from "../helpers/ssh-key";
import { addMemberTo, makeProject, makeRunner } from "../helpers/resources";

/**
 * DESIGN "Layout", src/services: REST and the pages call the same use case, so a change made on
 * either surface writes the same audit row (action, entity, the detail keys, the actor).
 */

interface AuditRow {
  action: string;
  author_id: number | null;
  impersonator_id: number | null;
  entity_type: string;
  entity_id: string;
  details: string;
  ip_address: string | null;
}

async function auditOf(action: string, entityId: string | number): Promise<AuditRow[]> {
  const { results } = await env.DB.prepare("SELECT * FROM audit_events WHERE action = ? AND entity_id = ? ORDER BY id").bind(action, String(entityId)).all<AuditRow>();
  return results;
}

/** What must agree between the two surfaces: everything but the entity's own values. */
function shapeOf(row: AuditRow) {
  return { action: row.action, entity_type: row.entity_type, impersonator_id: row.impersonator_id, ip_address: row.ip_address, detail_keys: Object.keys(JSON.parse(row.details)).sort() };
}

describe("applications: the admin API and /profile/applications write one audit row each, alike", () => {
  it("create, renew-secret and delete audit the same action, entity and details on both surfaces", async () => {
    const admin = await makeUserWithToken({ isAdmin: true });
    const rest = (await (await call("/api/v4/applications", { ...json({ name: "rest app", redirect_uri: "https://a.example/cb", scopes: "api" }), token: admin.token })).json()) as { id: number };
    expect((await call(`/api/v4/applications/${rest.id}/renew-secret`, { method: "POST", token: admin.token })).status).toBe(201);
    expect((await call(`/api/v4/applications/${rest.id}`, { method: "DELETE", token: admin.token })).status).toBe(204);

    const { user, browser } = await signedInUser();
    await browser.get("/profile/applications");
    const created = await browser.post("/profile/applications", { name: "page app", redirect_uri: "https://a.example/cb", scopes: ["api"], confidential: "1", expire_access_tokens: "1" });
    expect(created.status).toBe(201);
    const pageId = Number(/\/profile\/applications\/(\d+)\/renew/.exec(await created.text())![1]);
    expect((await browser.post(`/profile/applications/${pageId}/renew`, {})).status).toBe(200);
    expect((await browser.post(`/profile/applications/${pageId}/delete`, {})).status).toBe(303);

    for (const action of ["application_created", "application_secret_renewed", "application_deleted"]) {
      const [r] = await auditOf(action, rest.id);
      const [p] = await auditOf(action, pageId);
      expect(r.author_id).toBe(admin.user.id);
      expect(p.author_id).toBe(user.id);
      expect(shapeOf(p)).toEqual(shapeOf(r));
      expect(JSON.parse(p.details)).toMatchObject({ name: "page app" });
      expect(await auditOf(action, pageId)).toHaveLength(1);
    }
  });
});

describe("personal access tokens: the REST API and /profile/personal_access_tokens write one audit row each, alike", () => {
  it("create and revoke audit the token's name, user and scopes on both surfaces", async () => {
    const admin = await makeUserWithToken({ isAdmin: true });
    const { user, browser } = await signedInUser();
    const expires = new Date(Date.now() + 7 * 86400_000).toISOString().slice(0, 10);
    const rest = (await (await call(`/api/v4/users/${user.id}/personal_access_tokens`, { ...json({ name: "rest pat", scopes: ["read_api"], expires_at: expires }), token: admin.token })).json()) as { id: number };
    expect((await call(`/api/v4/personal_access_tokens/${rest.id}`, { method: "DELETE", token: admin.token })).status).toBe(204);

    await browser.get("/profile/personal_access_tokens");
    expect((await browser.post("/profile/personal_access_tokens", { name: "page pat", expires_at: expires, scopes: ["read_api"] })).status).toBe(201);
    const pageId = Number(/personal_access_tokens\/(\d+)\/revoke/.exec(browser.lastHtml)![1]);
    expect((await browser.post(`/profile/personal_access_tokens/${pageId}/revoke`, {})).status).toBe(303);
    // Revoking it again on the page changes nothing and writes nothing.
    await browser.get("/profile/personal_access_tokens");
    await browser.post(`/profile/personal_access_tokens/${pageId}/revoke`, {});

    for (const action of ["personal_access_token_created", "personal_access_token_revoked"]) {
      const [r] = await auditOf(action, rest.id);
      const pageRows = await auditOf(action, pageId);
      expect(pageRows).toHaveLength(1);
      expect(r.author_id).toBe(admin.user.id);
      expect(pageRows[0].author_id).toBe(user.id);
      expect(shapeOf(pageRows[0])).toEqual(shapeOf(r));
      expect(JSON.parse(pageRows[0].details)).toEqual({ name: "page pat", user_id: user.id, scopes: "read_api" });
    }
  });
});

describe("deploy tokens are audited: deploy_token_created and deploy_token_revoked, from REST and from Settings → Repository", () => {
  it("REST create and delete each write one row naming the maintainer, the token and its project", async () => {
    const owner = await makeUserWithToken();
    const project = await makeProject(owner.user.id);
    const created = (await (await call(`/api/v4/projects/${project.id}/deploy_tokens`, { ...json({ name: "ci", scopes: ["read_registry"] }), token: owner.token })).json()) as { id: number; username: string; token: string };
    const [c] = await auditOf("deploy_token_created", created.id);
    expect(c).toMatchObject({ author_id: owner.user.id, entity_type: "deploy_token" });
    expect(JSON.parse(c.details)).toEqual({ name: "ci", username: created.username, scopes: "read_registry", project_id: project.id, group_id: null });
    expect(c.details).not.toContain(created.token);
    expect(await auditOf("deploy_token_revoked", created.id)).toHaveLength(0);
    expect((await call(`/api/v4/projects/${project.id}/deploy_tokens/${created.id}`, { method: "DELETE", token: owner.token })).status).toBe(204);
    const revoked = await auditOf("deploy_token_revoked", created.id);
    expect(revoked).toHaveLength(1);
    expect(shapeOf(revoked[0])).toEqual({ ...shapeOf(c), action: "deploy_token_revoked" });
  });

  it("the page's create and revoke write the same rows as REST, with the signed-in maintainer as author", async () => {
    const owner = await makeUserWithToken();
    const project = await makeProject(owner.user.id);
    const rest = (await (await call(`/api/v4/projects/${project.id}/deploy_tokens`, { ...json({ name: "rest", scopes: ["read_registry"] }), token: owner.token })).json()) as { id: number };
    await call(`/api/v4/projects/${project.id}/deploy_tokens/${rest.id}`, { method: "DELETE", token: owner.token });

    const { user, browser } = await signedInUser();
    await addMemberTo("project", project.id, user.id, AccessLevel.MAINTAINER);
    const base = `/${project.pathWithNamespace}/-/settings/repository`;
    await browser.get(base);
    const name = unique("page");
    expect((await browser.post(`${base}/deploy_tokens`, { name, scopes: ["read_registry"], username: "", expires_at: "" })).status).toBe(201);
    const id = Number(/deploy_tokens\/(\d+)\/revoke/.exec(browser.lastHtml)![1]);
    expect((await browser.post(`${base}/deploy_tokens/${id}/revoke`, {})).status).toBe(303);

    for (const action of ["deploy_token_created", "deploy_token_revoked"]) {
      const [r] = await auditOf(action, rest.id);
      const pageRows = await auditOf(action, id);
      expect(pageRows).toHaveLength(1);
      expect(pageRows[0].author_id).toBe(user.id);
      expect(shapeOf(pageRows[0])).toEqual(shapeOf(r));
      expect(JSON.parse(pageRows[0].details)).toMatchObject({ name, project_id: project.id });
    }
    // The token of the page's revoke is gone, as a REST DELETE leaves it.
    expect((await call(`/api/v4/projects/${project.id}/deploy_tokens/${id}`, { token: await makePat(owner.user.id) })).status).toBe(404);
  });
});

/** A GraphQL request through call(), so it comes from this file's client address as REST's do. */
async function gql(query: string, opts: { variables: Record<string, unknown>; token: string }) {
  const res = await call("/api/graphql", { ...json({ query, variables: opts.variables }), token: opts.token });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return { body: (await res.json()) as any };
}

describe("runners: REST and GraphQL write one audit row each, alike (src/services/runners.ts)", () => {
  it("an update through PUT /runners/:id and through runnerUpdate audits ci_runner_updated with the same shape", async () => {
    const admin = await makeUserWithToken({ isAdmin: true });
    const rest = (await makeRunner({ runnerType: "instance_type", tagList: ["a"] })).runner;
    const viaGql = (await makeRunner({ runnerType: "instance_type", tagList: ["a"] })).runner;
    expect((await call(`/api/v4/runners/${rest.id}`, { ...json({ description: "rest", paused: true, tag_list: ["b"] }), method: "PUT", token: admin.token })).status).toBe(200);
    const g = await gql(`mutation($id: CiRunnerID!) { runnerUpdate(input: { id: $id, description: "gql", paused: true, tagList: ["b"] }) { errors } }`, {
      variables: { id: `gid://gitlab/Ci::Runner/${viaGql.id}` },
      token: admin.token,
    });
    expect(g.body.data.runnerUpdate.errors).toEqual([]);
    const [r] = await auditOf("ci_runner_updated", rest.id);
    const gqlRows = await auditOf("ci_runner_updated", viaGql.id);
    expect(gqlRows).toHaveLength(1);
    expect(r.author_id).toBe(admin.user.id);
    expect(gqlRows[0].author_id).toBe(admin.user.id);
    expect(shapeOf(gqlRows[0])).toEqual(shapeOf(r));
    expect(JSON.parse(gqlRows[0].details)).toMatchObject({ runner_type: "instance_type", description: "gql", changes: ["description", "paused", "tagList"] });
    expect(JSON.parse(r.details).changes).toEqual(JSON.parse(gqlRows[0].details).changes);
  });

  it("both surfaces refuse run_untagged false without tags (GitLab's Ci::Runner validation) and audit nothing", async () => {
    const admin = await makeUserWithToken({ isAdmin: true });
    const runner = (await makeRunner({ runnerType: "instance_type" })).runner;
    const res = await call(`/api/v4/runners/${runner.id}`, { ...json({ run_untagged: false }), method: "PUT", token: admin.token });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ message: { tags_list: ["can not be empty when runner is not allowed to pick untagged jobs"] } });
    const g = await gql(`mutation($id: CiRunnerID!) { runnerUpdate(input: { id: $id, runUntagged: false }) { errors } }`, {
      variables: { id: `gid://gitlab/Ci::Runner/${runner.id}` },
      token: admin.token,
    });
    expect(g.body.data.runnerUpdate.errors).toEqual(["Tags list can not be empty when runner is not allowed to pick untagged jobs"]);
    const short = await call(`/api/v4/runners/${runner.id}`, { ...json({ maximum_timeout: 300 }), method: "PUT", token: admin.token });
    expect(await short.json()).toEqual({ message: { maximum_timeout: ["needs to be at least 10 minutes"] } });
    expect(await auditOf("ci_runner_updated", runner.id)).toHaveLength(0);
  });

  it("create, assign, unassign, reset registration token and delete each write one row naming the actor", async () => {
    const owner = await makeUserWithToken();
    const project = await makeProject(owner.user.id);
    const other = await makeProject(owner.user.id);
    const created = (await (await call("/api/v4/user/runners", { ...json({ runner_type: "project_type", project_id: project.id }), token: owner.token })).json()) as { id: number; token: string };
    expect((await call(`/api/v4/projects/${other.id}/runners`, { ...json({ runner_id: created.id }), token: owner.token })).status).toBe(201);
    expect((await call(`/api/v4/projects/${other.id}/runners/${created.id}`, { method: "DELETE", token: owner.token })).status).toBe(204);
    expect((await call(`/api/v4/projects/${project.id}/runners/reset_registration_token`, { method: "POST", token: owner.token })).status).toBe(201);
    expect((await call(`/api/v4/runners/${created.id}`, { method: "DELETE", token: owner.token })).status).toBe(204);
    for (const action of ["ci_runner_created", "ci_runner_assigned_to_project", "ci_runner_unassigned_from_project", "ci_runner_unregistered"]) {
      const rows = await auditOf(action, created.id);
      expect(rows, action).toHaveLength(1);
      expect(rows[0]).toMatchObject({ author_id: owner.user.id, entity_type: "ci_runner" });
      expect(rows[0].details).not.toContain(created.token);
    }
    expect(JSON.parse((await auditOf("ci_runner_assigned_to_project", created.id))[0].details)).toMatchObject({ project_id: other.id });
    const [reset] = await auditOf("ci_runner_registration_token_reset", project.id);
    expect(reset).toMatchObject({ author_id: owner.user.id, entity_type: "project" });
  });
});

describe("projects, groups and memberships: one audit row per change, through src/services/namespaces.ts and memberships.ts", () => {
  /** What a surface other than REST (a page, a GraphQL mutation) passes: the service as it is, with its actor. */
  const direct = (id: number) => ({ id, ip: null });

  it("REST project create, update, path change and delete write project_created, project_updated, project_path_updated, project_destroyed once each", async () => {
    const owner = await makeUserWithToken();
    const path = unique("audited");
    const created = (await (await call("/api/v4/projects", { ...json({ path, visibility: "internal" }), token: owner.token })).json()) as { id: number; path_with_namespace: string };
    expect((await call(`/api/v4/projects/${created.id}`, { ...json({ description: "new words" }), method: "PUT", token: owner.token })).status).toBe(200);
    expect((await call(`/api/v4/projects/${created.id}`, { ...json({ path: `${path}-moved` }), method: "PUT", token: owner.token })).status).toBe(200);
    // A change that changes nothing writes nothing.
    expect((await call(`/api/v4/projects/${created.id}`, { ...json({ description: "new words" }), method: "PUT", token: owner.token })).status).toBe(200);
    expect((await call(`/api/v4/projects/${created.id}`, { method: "DELETE", token: owner.token })).status).toBe(202);

    const [c] = await auditOf("project_created", created.id);
    expect(c).toMatchObject({ author_id: owner.user.id, entity_type: "project" });
    expect(JSON.parse(c.details)).toEqual({ path_with_namespace: created.path_with_namespace, visibility: "internal" });
    const updated = await auditOf("project_updated", created.id);
    expect(updated).toHaveLength(1);
    expect(JSON.parse(updated[0].details)).toMatchObject({ fields: ["description"] });
    const [moved] = await auditOf("project_path_updated", created.id);
    expect(JSON.parse(moved.details)).toEqual({ from: created.path_with_namespace, to: `${created.path_with_namespace}-moved`, fields: ["path"] });
    expect(await auditOf("project_destroyed", created.id)).toHaveLength(1);
    for (const action of ["project_created", "project_path_updated", "project_destroyed"]) expect(await auditOf(action, created.id)).toHaveLength(1);
  });

  it("the service called directly (as a page or a GraphQL mutation would) writes the same rows as REST", async () => {
    const owner = await makeUserWithToken();
    const rest = (await (await call("/api/v4/groups", { ...json({ name: "Audited", path: unique("ag") }), token: owner.token })).json()) as { id: number };
    const restProject = (await (await call("/api/v4/projects", { ...json({ path: unique("ap") }), token: owner.token })).json()) as { id: number };

    const { createGroup, createProject } = await import("../../src/services/namespaces");
    const group = await createGroup(env, direct(owner.user.id), { name: "Direct", path: unique("dg"), parent: null, visibility: "private", description: "" });
    const project = await createProject(env, direct(owner.user.id), {
      name: "direct",
      path: unique("dp"),
      namespace: { kind: "user", id: owner.user.id, fullPath: owner.user.username },
      visibility: "private",
      description: "",
      readme: false,
      creator: owner.user,
    });
    for (const [action, restId, directId] of [["group_created", rest.id, group.id], ["project_created", restProject.id, project.id]] as const) {
      const [r] = await auditOf(action, restId);
      const [d] = await auditOf(action, directId);
      expect(d.author_id).toBe(owner.user.id);
      expect({ ...shapeOf(d), ip_address: null }).toEqual({ ...shapeOf(r), ip_address: null });
    }
  });

  it("REST member add, level change and removal write member_created, member_updated, member_destroyed on the source", async () => {
    const owner = await makeUserWithToken();
    const group = (await (await call("/api/v4/groups", { ...json({ name: "Members", path: unique("mg") }), token: owner.token })).json()) as { id: number };
    const dev = await makeUserWithToken();
    expect((await call(`/api/v4/groups/${group.id}/members`, { ...json({ user_id: dev.user.id, access_level: 30 }), token: owner.token })).status).toBe(201);
    // Refused changes write nothing: a member twice, a level above the actor's own, the last owner removed.
    expect((await call(`/api/v4/groups/${group.id}/members`, { ...json({ user_id: dev.user.id, access_level: 30 }), token: owner.token })).status).toBe(409);
    expect((await call(`/api/v4/groups/${group.id}/members/${owner.user.id}`, { method: "DELETE", token: owner.token })).status).toBe(400);
    expect((await call(`/api/v4/groups/${group.id}/members/${dev.user.id}`, { ...json({ access_level: 40 }), method: "PUT", token: owner.token })).status).toBe(200);
    expect((await call(`/api/v4/groups/${group.id}/members/${dev.user.id}`, { method: "DELETE", token: owner.token })).status).toBe(204);

    const rows = await env.DB.prepare("SELECT * FROM audit_events WHERE entity_type = 'group' AND entity_id = ? AND action LIKE 'member_%' ORDER BY id")
      .bind(String(group.id))
      .all<AuditRow>();
    expect(rows.results.map((r) => [r.action, r.author_id, JSON.parse(r.details).user_id, JSON.parse(r.details).access_level])).toEqual([
      ["member_created", owner.user.id, dev.user.id, 30],
      ["member_updated", owner.user.id, dev.user.id, 40],
      ["member_destroyed", owner.user.id, dev.user.id, 40],
    ]);
  });
});

describe("DPoP for personal access tokens: PUT /api/v4/user/preferences and the access tokens page write one audit row each, alike", () => {
  it("turning dpop_enabled on audits user_preferences_updated with the same entity and details on both surfaces", async () => {
    const rest = await makeUserWithToken();
    const put = await call("/api/v4/user/preferences", { method: "PUT", token: rest.token, headers: { "Content-Type": "application/json" }, body: JSON.stringify({ dpop_enabled: true }) });
    expect(put.status).toBe(200);
    const { user, browser } = await signedInUser();
    await browser.get("/profile/personal_access_tokens");
    expect((await browser.post("/profile/dpop", { dpop_enabled: "true" })).status).toBe(303);
    const [viaApi] = await auditOf("user_preferences_updated", rest.user.id);
    const [viaPage] = await auditOf("user_preferences_updated", user.id);
    expect(viaApi!.author_id).toBe(rest.user.id);
    expect(viaPage!.author_id).toBe(user.id);
    expect(JSON.parse(viaApi!.details)).toEqual({ dpop_enabled: true });
    expect(shapeOf(viaPage!)).toEqual(shapeOf(viaApi!));
  });

  it("adding and removing an SSH key audit ssh_key_added and ssh_key_removed, never the key itself", async () => {
    const { user, token } = await makeUserWithToken();
    const key = await sshTestKey("ssh-ed25519");
    const added = (await (await call("/api/v4/user/keys", { ...json({ title: "k", key: key.publicLine, usage_type: "signing" }), token })).json()) as { id: number };
    expect((await call(`/api/v4/user/keys/${added.id}`, { method: "DELETE", token })).status).toBe(204);
    const [add] = await auditOf("ssh_key_added", added.id);
    const [remove] = await auditOf("ssh_key_removed", added.id);
    expect(add!.author_id).toBe(user.id);
    expect(remove!.author_id).toBe(user.id);
    expect(add!.details).not.toContain(key.publicLine.split(" ")[1]!);
  });
});
