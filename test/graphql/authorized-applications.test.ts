import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { getDb } from "../../src/db/client";
import { createApplication } from "../../src/db/applications";
import { call, makePat, makeUser, TEST_PASSWORD, unique } from "../helpers/fixtures";
import { gid } from "./fixtures";
import { gql } from "./helpers";

/**
 * GraphQL for what the pages gained: CurrentUser.authorizedApplications and
 * authorizedApplicationRevoke are the authorized-applications list and its Revoke button of
 * /profile/applications (the same functions: only the caller's own live grants; revoking kills
 * every token family of that application for the caller at once).
 */
async function grantFor(username: string, scope: string) {
  const { row, secret } = await createApplication(getDb(env.DB), { name: unique("Third party "), redirectUri: "https://a.example/cb", scopes: ["api", "read_user"] });
  const token = async () => {
    const res = await call("/oauth/token", {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Authorization: `Basic ${btoa(`${row.uid}:${secret}`)}` },
      body: new URLSearchParams({ grant_type: "password", username, password: TEST_PASSWORD, scope }),
    });
    return ((await res.json()) as { access_token: string }).access_token;
  };
  return { app: row, token };
}

const LIST = `{ currentUser { username authorizedApplications { count nodes { id name uid scopes createdAt } } } }`;
const REVOKE = `mutation($id: AuthnOauthApplicationID!) { authorizedApplicationRevoke(input: { id: $id }) { revokedGrants errors } }`;

describe("CurrentUser.authorizedApplications: the caller's applications with live grants, scopes merged", () => {
  it("lists each application once with the scopes of all its live grants; another user sees none of them", async () => {
    const user = await makeUser();
    const a = await grantFor(user.username, "read_user");
    await a.token();
    const b = await grantFor(user.username, "api");
    await b.token();
    const pat = await makePat(user.id, ["read_api"]);
    const r = await gql(LIST, { token: pat });
    expect(r.body.errors).toBeUndefined();
    const conn = r.body.data.currentUser.authorizedApplications;
    expect(conn.count).toBe(2);
    expect(conn.nodes.map((n: { id: string; uid: string; scopes: string[] }) => [n.id, n.uid, n.scopes])).toEqual([
      [gid("Authn::OauthApplication", a.app.id), a.app.uid, ["read_user"]],
      [gid("Authn::OauthApplication", b.app.id), b.app.uid, ["api"]],
    ]);
    expect(Date.parse(conn.nodes[0].createdAt)).not.toBeNaN();
    const other = await makeUser();
    const theirs = await gql(LIST, { token: await makePat(other.id, ["read_api"]) });
    expect(theirs.body.data.currentUser.authorizedApplications.count).toBe(0);
  });

  it("pages with first/after like every connection", async () => {
    const user = await makeUser();
    for (let i = 0; i < 3; i++) await (await grantFor(user.username, "read_user")).token();
    const pat = await makePat(user.id, ["read_api"]);
    const first = await gql(`{ currentUser { authorizedApplications(first: 2) { count nodes { name } pageInfo { hasNextPage endCursor } } } }`, { token: pat });
    const page = first.body.data.currentUser.authorizedApplications;
    expect(page.count).toBe(3);
    expect(page.nodes).toHaveLength(2);
    expect(page.pageInfo.hasNextPage).toBe(true);
    const rest = await gql(`query($after: String) { currentUser { authorizedApplications(after: $after) { nodes { name } pageInfo { hasNextPage } } } }`, { token: pat, variables: { after: page.pageInfo.endCursor } });
    expect(rest.body.data.currentUser.authorizedApplications.nodes).toHaveLength(1);
  });
});

describe("authorizedApplicationRevoke: the Revoke button of the authorized-applications page", () => {
  it("revokes every grant of that application for the caller at once: its tokens stop working, the list no longer has it", async () => {
    const user = await makeUser();
    const a = await grantFor(user.username, "read_user");
    const tokens = [await a.token(), await a.token()];
    for (const t of tokens) expect((await call("/api/v4/user", { token: t })).status).toBe(200);
    const pat = await makePat(user.id, ["api"]);
    const r = await gql(REVOKE, { variables: { id: gid("Authn::OauthApplication", a.app.id) }, token: pat });
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data.authorizedApplicationRevoke).toEqual({ revokedGrants: 2, errors: [] });
    for (const t of tokens) expect((await call("/api/v4/user", { token: t })).status).toBe(401);
    expect((await gql(LIST, { token: pat })).body.data.currentUser.authorizedApplications.count).toBe(0);
  });

  it("an application the caller never authorized is resource-not-available, and another user's grants survive", async () => {
    const owner = await makeUser();
    const a = await grantFor(owner.username, "read_user");
    const t = await a.token();
    const stranger = await makeUser();
    const r = await gql(REVOKE, { variables: { id: gid("Authn::OauthApplication", a.app.id) }, token: await makePat(stranger.id, ["api"]) });
    expect(r.body.errors[0].extensions.code).toBe("RESOURCE_NOT_AVAILABLE");
    expect((await call("/api/v4/user", { token: t })).status).toBe(200);
  });

  it("needs the api scope (read_api may only list); anonymous callers have no currentUser", async () => {
    const user = await makeUser();
    const a = await grantFor(user.username, "read_user");
    await a.token();
    const r = await gql(REVOKE, { variables: { id: gid("Authn::OauthApplication", a.app.id) }, token: await makePat(user.id, ["read_api"]) });
    expect(r.body.errors[0].extensions.code).toBe("INSUFFICIENT_SCOPE");
    expect((await gql(LIST)).body.data.currentUser).toBeNull();
  });
});
