import { describe, expect, it } from "vitest";
import { makePat, makeUser, makeUserWithToken, TEST_PASSWORD } from "../helpers/fixtures";
import { oauthToken } from "../helpers/password-grant";
import { callAt } from "../helpers/versioned";
import { groupWithProject } from "./fixtures";
import { gql } from "./helpers";

/** DESIGN: GraphQL at /api/graphql with the REST API's tokens; errors in GraphQL's shape, never a stack. */
const projectQuery = `query($p: ID!) { project(fullPath: $p) { fullPath visibility } }`;

describe("GraphQL authentication (Bearer / PRIVATE-TOKEN; read_api or api to query, api to mutate)", () => {
  it("accepts a personal access token as Bearer and as PRIVATE-TOKEN, and names the caller", async () => {
    const { user, token } = await makeUserWithToken({ scopes: ["read_api"] });
    const bearer = await gql(`{ echo(text: "hi") currentUser { username } }`, { token });
    expect(bearer.body.data).toEqual({ echo: `"${user.username}" says: hi`, currentUser: { username: user.username } });
    const priv = await gql(`{ currentUser { username } }`, { headers: { "PRIVATE-TOKEN": token } });
    expect(priv.body.data.currentUser.username).toBe(user.username);
  });

  it("accepts an OAuth access token (password grant) as Bearer", async () => {
    const user = await makeUser();
    const token = await oauthToken(user.username, TEST_PASSWORD);
    const r = await gql(`{ currentUser { username } }`, { token });
    expect(r.status).toBe(200);
    expect(r.body.data.currentUser.username).toBe(user.username);
  });

  it("answers a bad, expired or revoked token with 401 and a GraphQL error body", async () => {
    const user = await makeUser();
    const expired = await makePat(user.id, ["api"], "2020-01-01");
    for (const token of ["glpat-not-a-real-token", expired, "some-oauth-looking-token"]) {
      const r = await gql(`{ currentUser { username } }`, { token });
      expect(r.status).toBe(401);
      expect(r.body).toEqual({ errors: [{ message: "Invalid token", extensions: expect.objectContaining({ code: "UNAUTHENTICATED" }) }] });
    }
  });

  it("refuses a token without read_api or api (403, GraphQL shape)", async () => {
    const { token } = await makeUserWithToken({ scopes: ["read_user", "read_repository"] });
    const r = await gql(`{ currentUser { username } }`, { token });
    expect(r.status).toBe(403);
    expect(r.body.errors[0].message).toContain("Insufficient scope");
  });

  it("lets read_api query but not mutate; api may mutate", async () => {
    const { project, owner } = await groupWithProject();
    const readOnly = await makePat(owner.id, ["read_api"]);
    const full = await makePat(owner.id, ["api"]);
    const m = `mutation($p: ID!) { createIssue(input: { projectPath: $p, title: "From GraphQL" }) { issue { title } errors } }`;
    const q = await gql(projectQuery, { variables: { p: project.pathWithNamespace }, token: readOnly });
    expect(q.body.data.project.fullPath).toBe(project.pathWithNamespace);
    const denied = await gql(m, { variables: { p: project.pathWithNamespace }, token: readOnly });
    expect(denied.status).toBe(200);
    expect(denied.body.data.createIssue).toBeNull();
    expect(denied.body.errors[0].extensions?.code).toBe("INSUFFICIENT_SCOPE");
    const ok = await gql(m, { variables: { p: project.pathWithNamespace }, token: full });
    expect(ok.body.data.createIssue).toEqual({ issue: { title: "From GraphQL" }, errors: [] });
  });

  it("unauthenticated queries see only public data", async () => {
    const pub = await groupWithProject({ visibility: "public" });
    const priv = await groupWithProject({ visibility: "private" });
    const internal = await groupWithProject({ visibility: "internal" });
    expect((await gql(projectQuery, { variables: { p: pub.project.pathWithNamespace } })).body.data.project).toEqual({
      fullPath: pub.project.pathWithNamespace,
      visibility: "public",
    });
    expect((await gql(projectQuery, { variables: { p: priv.project.pathWithNamespace } })).body.data.project).toBeNull();
    expect((await gql(projectQuery, { variables: { p: internal.project.pathWithNamespace } })).body.data.project).toBeNull();
    expect((await gql(`{ currentUser { username } }`)).body.data.currentUser).toBeNull();
    // A signed-in stranger sees internal but not private projects.
    const { token } = await makeUserWithToken({ scopes: ["read_api"] });
    expect((await gql(projectQuery, { variables: { p: internal.project.pathWithNamespace }, token })).body.data.project).not.toBeNull();
    expect((await gql(projectQuery, { variables: { p: priv.project.pathWithNamespace }, token })).body.data.project).toBeNull();
  });

  it("anonymous mutations are refused with a GraphQL error", async () => {
    const { project } = await groupWithProject({ visibility: "public" });
    const r = await gql(`mutation($p: ID!) { createIssue(input: { projectPath: $p, title: "x" }) { errors } }`, { variables: { p: project.pathWithNamespace } });
    expect(r.body.data.createIssue).toBeNull();
    expect(r.body.errors[0].message).toContain("you don't have permission");
  });
});

describe("GraphQL errors: malformed requests get GraphQL's error shape, never a 500 or a stack", () => {
  const raw = (init: RequestInit & { token?: string }, path = "/api/graphql") => callAt("16.0", path, init);

  it("a syntax error", async () => {
    const r = await gql(`{ project(fullPath: "x" { id }`);
    expect(r.status).toBeGreaterThanOrEqual(200);
    expect(r.status).toBeLessThan(500);
    expect(r.body.errors[0].message).toMatch(/^Syntax Error/);
    expect(JSON.stringify(r.body)).not.toMatch(/at .+\.(ts|js):\d+/);
  });

  it("an unknown field and a wrong argument type", async () => {
    const a = await gql(`{ nope }`);
    expect(a.body.errors[0].message).toBe('Cannot query field "nope" on type "Query".');
    const b = await gql(`{ project(fullPath: true) { id } }`);
    expect(b.status).toBeLessThan(500);
    expect(b.body.errors[0].message).toContain("ID cannot represent");
  });

  it("a body that is not JSON, a body without a query, and a non-object variables value", async () => {
    for (const body of ["{not json", JSON.stringify({ variables: {} }), JSON.stringify({ query: "{ echo(text: \"x\") }", variables: "[]" })]) {
      const res = await raw({ method: "POST", body, headers: { "Content-Type": "application/json", Accept: "application/json" } });
      // yoga's statuses (GraphQL over HTTP): 400 for an unparsable request, 200 or 400 otherwise.
      expect([200, 400], body).toContain(res.status);
      const json = (await res.json()) as { errors: { message: string }[] };
      expect(json.errors[0].message).toEqual(expect.any(String));
    }
  });

  it("a missing required variable and a bad variable value", async () => {
    const r = await gql(`query($p: ID!) { project(fullPath: $p) { id } }`);
    expect(r.status).toBeLessThan(500);
    expect(r.body.errors[0].message).toContain('Variable "$p" of required type "ID!" was not provided');
    const bad = await gql(`query($id: IssueID!) { issue(id: $id) { id } }`, { variables: { id: "42" } });
    expect(bad.status).toBeLessThan(500);
    expect(bad.body.errors[0].message).toContain("is not a valid Global ID");
  });

  it("a query deeper than 15 levels is refused in validation (GitLab's limit); a standard introspection query passes", async () => {
    let inner = "fullPath";
    for (let i = 0; i < 6; i++) inner = `packages { nodes { project { ${inner} } } }`;
    const deep = await gql(`{ project(fullPath: "a/b") { ${inner} } }`);
    expect(deep.status).toBeLessThan(500);
    expect(deep.body.errors[0].message).toMatch(/^Query has depth of \d+, which exceeds max depth of 15$/);
    const { getIntrospectionQuery } = await import("graphql");
    const intro = await gql(getIntrospectionQuery());
    expect(intro.body.errors).toBeUndefined();
    expect(intro.body.data.__schema.queryType.name).toBe("Query");
  });

  it("GET serves queries, and refuses mutations (405)", async () => {
    const q = await raw({ method: "GET" }, `/api/graphql?query=${encodeURIComponent('{ echo(text: "g") }')}`);
    expect(q.status).toBe(200);
    expect(((await q.json()) as any).data.echo).toBe("nil says: g");
    const { token } = await makeUserWithToken();
    const m = await raw({ method: "GET", token }, `/api/graphql?query=${encodeURIComponent('mutation { createIssue(input: { projectPath: "a/b", title: "t" }) { errors } }')}`);
    expect(m.status).toBe(405);
  });
});
