import { describe, expect, it } from "vitest";
import { AccessLevel } from "../../src/domain/access";
import { env } from "cloudflare:test";
import { call } from "../helpers/fixtures";
import { groupWithProject, memberToken } from "./fixtures";
import { gql } from "./helpers";

/**
 * GraphQL for what REST gained: deploy tokens of projects and groups (DESIGN, Registries: deploy
 * tokens as GitLab's API), gated by the REST API's rule (maintainers: admin_project, maintain_group)
 * and stored by the same functions, so each API sees what the other made.
 */
const CREATE = `mutation($input: DeployTokenCreateInput!) { deployTokenCreate(input: $input) { token errors deployToken { id name username scopes expiresAt revoked expired } } }`;
const REVOKE = `mutation($id: DeployTokenID!) { deployTokenRevoke(input: { id: $id }) { errors } }`;
const PROJECT_TOKENS = `query($path: ID!) { project(fullPath: $path) { deployTokens { count nodes { id name scopes } } } }`;
const GROUP_TOKENS = `query($path: ID!) { group(fullPath: $path) { deployTokens(active: true) { count nodes { id name } } } }`;
const restId = (gid: string) => Number(gid.split("/").pop());

describe("deployTokenCreate, Project.deployTokens, deployTokenRevoke: one store with REST /projects/:id/deploy_tokens", () => {
  it("a maintainer creates a token (secret in this answer only), REST lists it, GraphQL lists it, revoking removes it from both and the token stops working", async () => {
    const { project, token } = await groupWithProject();
    const created = await gql(CREATE, {
      variables: { input: { projectPath: project.pathWithNamespace, name: "deployer", scopes: ["READ_REPOSITORY", "READ_REGISTRY"], expiresAt: "2099-01-01T00:00:00Z" } },
      token,
    });
    expect(created.body.errors).toBeUndefined();
    const out = created.body.data.deployTokenCreate;
    expect(out.errors).toEqual([]);
    expect(out.token).toMatch(/^gldt-/);
    expect(out.deployToken).toMatchObject({ name: "deployer", scopes: ["READ_REPOSITORY", "READ_REGISTRY"], expiresAt: "2099-01-01T00:00:00.000Z", revoked: false, expired: false });
    expect(out.deployToken.username).toBe(`gitlab+deploy-token-${restId(out.deployToken.id)}`);

    const rest = (await (await call(`/api/v4/projects/${project.id}/deploy_tokens`, { token })).json()) as { id: number; scopes: string[] }[];
    expect(rest.map((t) => t.id)).toEqual([restId(out.deployToken.id)]);
    expect(rest[0].scopes).toEqual(["read_repository", "read_registry"]);
    const listed = await gql(PROJECT_TOKENS, { variables: { path: project.pathWithNamespace }, token });
    expect(listed.body.data.project.deployTokens).toEqual({ count: 1, nodes: [{ id: out.deployToken.id, name: "deployer", scopes: ["READ_REPOSITORY", "READ_REGISTRY"] }] });
    // The token works where deploy tokens work (git's info/refs needs read_repository).
    const basic = { Authorization: `Basic ${btoa(`${out.deployToken.username}:${out.token}`)}` };
    const before = await call(`/${project.pathWithNamespace}.git/info/refs?service=git-upload-pack`, { headers: basic });
    expect(before.status).not.toBe(401);

    const revoked = await gql(REVOKE, { variables: { id: out.deployToken.id }, token });
    expect(revoked.body.data.deployTokenRevoke).toEqual({ errors: [] });
    expect(await (await call(`/api/v4/projects/${project.id}/deploy_tokens`, { token })).json()).toEqual([]);
    expect((await gql(PROJECT_TOKENS, { variables: { path: project.pathWithNamespace }, token })).body.data.project.deployTokens.count).toBe(0);
    expect((await call(`/${project.pathWithNamespace}.git/info/refs?service=git-upload-pack`, { headers: basic })).status).toBe(401);
  });

  it("services: the mutations write the same audit rows as REST (deploy_token_created, deploy_token_revoked), never the token", async () => {
    const { project, token } = await groupWithProject();
    const made = (await gql(CREATE, { variables: { input: { projectPath: project.pathWithNamespace, name: "audited", scopes: ["READ_REGISTRY"] } }, token })).body.data.deployTokenCreate;
    await gql(REVOKE, { variables: { id: made.deployToken.id }, token });
    const { results } = await env.DB.prepare("SELECT action, details FROM audit_events WHERE entity_type = 'deploy_token' AND entity_id = ? ORDER BY id")
      .bind(String(restId(made.deployToken.id)))
      .all<{ action: string; details: string }>();
    expect(results.map((r) => r.action)).toEqual(["deploy_token_created", "deploy_token_revoked"]);
    expect(JSON.parse(results[0].details)).toMatchObject({ name: "audited", project_id: project.id });
    expect(results.map((r) => r.details).join("")).not.toContain(made.token);
  });

  it("below maintainer, as REST refuses (403): the list is null and both mutations answer resource-not-available", async () => {
    const { project, token } = await groupWithProject();
    const made = (await gql(CREATE, { variables: { input: { projectPath: project.pathWithNamespace, name: "x", scopes: ["READ_REGISTRY"] } }, token })).body.data.deployTokenCreate;
    const dev = await memberToken("project", project.id, AccessLevel.DEVELOPER);
    expect((await call(`/api/v4/projects/${project.id}/deploy_tokens`, { token: dev.token })).status).toBe(403);
    expect((await gql(PROJECT_TOKENS, { variables: { path: project.pathWithNamespace }, token: dev.token })).body.data.project.deployTokens).toBeNull();
    const c = await gql(CREATE, { variables: { input: { projectPath: project.pathWithNamespace, name: "y", scopes: ["READ_REGISTRY"] } }, token: dev.token });
    expect(c.body.errors[0].extensions.code).toBe("RESOURCE_NOT_AVAILABLE");
    const r = await gql(REVOKE, { variables: { id: made.deployToken.id }, token: dev.token });
    expect(r.body.errors[0].extensions.code).toBe("RESOURCE_NOT_AVAILABLE");
    expect((await gql(PROJECT_TOKENS, { variables: { path: project.pathWithNamespace }, token })).body.data.project.deployTokens.count).toBe(1);
  });

  it("a maintainer of another project cannot revoke this project's token by its global id", async () => {
    const a = await groupWithProject();
    const b = await groupWithProject();
    const made = (await gql(CREATE, { variables: { input: { projectPath: a.project.pathWithNamespace, name: "x", scopes: ["READ_REGISTRY"] } }, token: a.token })).body.data.deployTokenCreate;
    const r = await gql(REVOKE, { variables: { id: made.deployToken.id }, token: b.token });
    expect(r.body.errors[0].extensions.code).toBe("RESOURCE_NOT_AVAILABLE");
  });

  it("bad input gets the REST API's messages as mutation errors; naming both or neither owner is a user error", async () => {
    const { project, group, token } = await groupWithProject();
    const base = { projectPath: project.pathWithNamespace, name: "x" };
    const noScopes = await gql(CREATE, { variables: { input: { ...base, scopes: [] } }, token });
    expect(noScopes.body.data.deployTokenCreate).toMatchObject({ token: null, deployToken: null, errors: ["scopes can't be blank"] });
    const past = await gql(CREATE, { variables: { input: { ...base, scopes: ["READ_REGISTRY"], expiresAt: "2001-01-01T00:00:00Z" } }, token });
    expect(past.body.data.deployTokenCreate.errors).toEqual(["expires_at must be in the future"]);
    const both = await gql(CREATE, { variables: { input: { ...base, groupPath: group.fullPath, scopes: ["READ_REGISTRY"] } }, token });
    expect(both.body.errors[0].message).toBe("Give exactly one of projectPath and groupPath");
    const badScope = await gql(CREATE, { variables: { input: { ...base, scopes: ["API"] } }, token });
    // A variable outside the enum is a request error (GraphQL over HTTP: 400), never a 500.
    expect(badScope.status).toBe(400);
    expect(badScope.body.errors[0].message).toContain("DeployTokenScope");
  });
});

describe("Group.deployTokens and deployTokenCreate(groupPath:): REST /groups/:id/deploy_tokens", () => {
  it("a group owner creates one; the group lists it (active only); REST sees it; a group developer sees null", async () => {
    const { group, token } = await groupWithProject();
    const made = (await gql(CREATE, { variables: { input: { groupPath: group.fullPath, name: "g", scopes: ["READ_PACKAGE_REGISTRY"] } }, token })).body.data.deployTokenCreate;
    expect(made.errors).toEqual([]);
    const listed = await gql(GROUP_TOKENS, { variables: { path: group.fullPath }, token });
    expect(listed.body.data.group.deployTokens).toEqual({ count: 1, nodes: [{ id: made.deployToken.id, name: "g" }] });
    const rest = (await (await call(`/api/v4/groups/${group.id}/deploy_tokens`, { token })).json()) as { id: number }[];
    expect(rest.map((t) => t.id)).toEqual([restId(made.deployToken.id)]);
    const dev = await memberToken("group", group.id, AccessLevel.DEVELOPER);
    expect((await gql(GROUP_TOKENS, { variables: { path: group.fullPath }, token: dev.token })).body.data.group.deployTokens).toBeNull();
  });
});
