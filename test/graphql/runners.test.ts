import { describe, expect, it } from "vitest";
import { AccessLevel } from "../../src/domain/access";
import { makeUserWithToken, unique } from "../helpers/fixtures";
import { DAY, makeRunner } from "../helpers/resources";
import { gid, groupWithProject, memberToken } from "./fixtures";
import { fieldsOf, gql } from "./helpers";
import { expectNotice } from "../helpers/notices";

/** Schedule part b: CiRunner, Query.runners, Group.runners, runnerUpdate, on each side of their milestones. */
async function admin() {
  return makeUserWithToken({ isAdmin: true, scopes: ["api"] });
}

/** Runners tagged with a tag unique to the test, so instance-wide lists see only them. */
async function tagged(specs: { paused?: boolean; contactedAt?: number | null; createdAt?: number; description?: string }[]) {
  const tag = unique("t");
  const made = [];
  for (const s of specs) {
    made.push((await makeRunner({ runnerType: "instance_type", tagList: [tag], description: s.description ?? unique("r"), ...s })).runner);
  }
  return { tag, runners: made };
}

const byTag = (args = "") => `query($tag: String!) { runners(tagList: [$tag]${args}) { count nodes { id status description } } }`;

describe("graphql-runner-active: CiRunner.active, RunnerUpdateInput.active and the active argument become paused in 16.0", () => {
  it("15.11: active is served, deprecated, next to paused; using it answers with Deprecation headers", async () => {
    const { token } = await admin();
    const { tag, runners } = await tagged([{ paused: true }, { paused: false }]);
    const r = await gql(`query($tag: String!) { runners(tagList: [$tag], sort: CREATED_ASC) { nodes { id active paused } } }`, { variables: { tag }, token, version: "15.11" });
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data.runners.nodes).toEqual([
      { id: gid("Ci::Runner", runners[0].id), active: false, paused: true },
      { id: gid("Ci::Runner", runners[1].id), active: true, paused: false },
    ]);
    expectNotice(r.headers, "graphql-runner-active");
    const intro = await gql(`{ __type(name: "CiRunner") { fields(includeDeprecated: true) { name isDeprecated deprecationReason } } }`, { version: "15.11" });
    const active = intro.body.data.__type.fields.find((f: { name: string }) => f.name === "active");
    expect(active.isDeprecated).toBe(true);
    expect(active.deprecationReason).toContain("paused");
  });

  it("15.11: the active argument filters (active: false = paused) and runnerUpdate accepts active", async () => {
    const { token } = await admin();
    const { tag, runners } = await tagged([{ paused: true }, { paused: false }]);
    const r = await gql(`query($tag: String!) { runners(tagList: [$tag], active: false) { nodes { id } } }`, { variables: { tag }, token, version: "15.11" });
    expect(r.body.data.runners.nodes).toEqual([{ id: gid("Ci::Runner", runners[0].id) }]);
    const u = await gql(`mutation($id: CiRunnerID!) { runnerUpdate(input: { id: $id, active: false }) { runner { paused } errors } }`, {
      variables: { id: gid("Ci::Runner", runners[1].id) },
      token,
      version: "15.11",
    });
    expect(u.body.data.runnerUpdate).toEqual({ runner: { paused: true }, errors: [] });
    expect(u.headers.get("link")).toContain("graphql-runner-active");
  });

  it("16.0: active is absent from CiRunner, RunnerUpdateInput and the runners arguments (validation fails); paused works", async () => {
    const { token } = await admin();
    const { tag, runners } = await tagged([{ paused: true }]);
    expect(await fieldsOf("CiRunner", "16.0")).not.toContain("active");
    expect(await fieldsOf("RunnerUpdateInput", "16.0")).not.toContain("active");
    const field = await gql(`{ runners { nodes { active } } }`, { token, version: "16.0" });
    expect(field.body.data).toBeUndefined();
    expect(field.body.errors[0].message).toBe('Cannot query field "active" on type "CiRunner".');
    const arg = await gql(`{ runners(active: true) { count } }`, { token, version: "16.0" });
    expect(arg.body.errors[0].message).toContain('Unknown argument "active"');
    const input = await gql(`mutation($id: CiRunnerID!) { runnerUpdate(input: { id: $id, active: true }) { errors } }`, { variables: { id: gid("Ci::Runner", runners[0].id) }, token, version: "16.0" });
    expect(input.body.errors[0].message).toContain('Field "active" is not defined by type "RunnerUpdateInput"');
    const paused = await gql(`query($tag: String!) { runners(tagList: [$tag], paused: true) { nodes { paused } } }`, { variables: { tag }, token, version: "16.0" });
    expect(paused.body.data.runners.nodes).toEqual([{ paused: true }]);
    expect(paused.headers.get("deprecation")).toBeNull();
    const upd = await gql(`mutation($id: CiRunnerID!) { runnerUpdate(input: { id: $id, paused: false, description: "renamed" }) { runner { paused description } errors } }`, {
      variables: { id: gid("Ci::Runner", runners[0].id) },
      token,
      version: "16.0",
    });
    expect(upd.body.data.runnerUpdate).toEqual({ runner: { paused: false, description: "renamed" }, errors: [] });
  });

  it("14.7: before the announcement, paused does not exist yet and active is not deprecated", async () => {
    expect(await fieldsOf("CiRunner", "14.7")).toContain("active");
    expect(await fieldsOf("CiRunner", "14.7")).not.toContain("paused");
    const intro = await gql(`{ __type(name: "CiRunner") { fields { name } } }`, { version: "14.7" });
    expect(intro.body.data.__type.fields.map((f: { name: string }) => f.name)).toContain("active");
  });
});

describe("graphql-runner-status-legacy-values: status no longer returns PAUSED from 15.0", () => {
  it("14.10 reports a paused runner as PAUSED; 15.0 reports its contact status", async () => {
    const { token } = await admin();
    const { tag } = await tagged([{ paused: true, contactedAt: Date.now() - 60_000 }]);
    const old = await gql(byTag(), { variables: { tag }, token, version: "14.10" });
    expect(old.body.data.runners.nodes[0].status).toBe("PAUSED");
    expect(old.headers.get("link")).toContain("graphql-runner-status-legacy-values");
    const now = await gql(byTag(), { variables: { tag }, token, version: "15.0" });
    expect(now.body.data.runners.nodes[0].status).toBe("ONLINE");
  });
});

describe("graphql-runner-status-never-contacted: NOT_CONNECTED becomes NEVER_CONTACTED in 15.0", () => {
  it("14.10 answers NOT_CONNECTED (deprecated enum value), 15.0 NEVER_CONTACTED and the old value is gone", async () => {
    const { token } = await admin();
    const { tag } = await tagged([{ contactedAt: null }]);
    expect((await gql(byTag(), { variables: { tag }, token, version: "14.10" })).body.data.runners.nodes[0].status).toBe("NOT_CONNECTED");
    expect((await gql(byTag(), { variables: { tag }, token, version: "15.0" })).body.data.runners.nodes[0].status).toBe("NEVER_CONTACTED");
    const filterOld = await gql(byTag(", status: NOT_CONNECTED"), { variables: { tag }, token, version: "15.0" });
    expect(filterOld.body.errors[0].message).toContain('Value "NOT_CONNECTED" does not exist in "CiRunnerStatus" enum');
    const filterNew = await gql(byTag(", status: NEVER_CONTACTED"), { variables: { tag }, token, version: "15.0" });
    expect(filterNew.body.data.runners.count).toBe(1);
  });
});

describe("graphql-runner-status-stale: STALE from 15.0 for runners silent three months", () => {
  it("a runner last seen 100 days ago is OFFLINE at 14.10 and STALE at 15.0; an old never-contacted runner is STALE at 15.0", async () => {
    const { token } = await admin();
    const { tag } = await tagged([
      { contactedAt: Date.now() - 100 * DAY, description: "silent" },
      { contactedAt: null, createdAt: Date.now() - 120 * DAY, description: "never" },
    ]);
    const q = `query($tag: String!) { runners(tagList: [$tag], sort: CREATED_DESC) { nodes { description status } } }`;
    const old = await gql(q, { variables: { tag }, token, version: "14.10" });
    expect(old.body.data.runners.nodes).toEqual(
      expect.arrayContaining([
        { description: "silent", status: "OFFLINE" },
        { description: "never", status: "NOT_CONNECTED" },
      ]),
    );
    const now = await gql(q, { variables: { tag }, token, version: "15.0" });
    expect(now.body.data.runners.nodes.map((n: { status: string }) => n.status)).toEqual(["STALE", "STALE"]);
    // Accepted as a filter from 14.6; before that the value does not exist.
    expect((await gql(byTag(", status: STALE"), { variables: { tag }, token, version: "14.6" })).body.data.runners.count).toBe(2);
    expect((await gql(byTag(", status: STALE"), { variables: { tag }, token, version: "14.5" })).body.errors[0].message).toContain('"STALE" does not exist');
  });
});

describe("graphql-runner-status-filter-active-paused: status ACTIVE/PAUSED as a filter until 16.0", () => {
  it("15.11 filters by status: PAUSED (deprecated); 16.0 refuses the value in validation", async () => {
    const { token } = await admin();
    const { tag } = await tagged([{ paused: true }, { paused: false }]);
    const old = await gql(byTag(", status: PAUSED"), { variables: { tag }, token, version: "15.11" });
    expect(old.body.data.runners.count).toBe(1);
    expect(old.headers.get("link")).toContain("graphql-runner-status-filter-active-paused");
    const active = await gql(byTag(", status: ACTIVE"), { variables: { tag }, token, version: "15.11" });
    expect(active.body.data.runners.count).toBe(1);
    const now = await gql(byTag(", status: PAUSED"), { variables: { tag }, token, version: "16.0" });
    expect(now.body.errors[0].message).toContain('Value "PAUSED" does not exist in "CiRunnerStatus" enum');
    const viaVariable = await gql(`query($s: CiRunnerStatus) { runners(status: $s) { count } }`, { variables: { s: "ACTIVE" }, token, version: "16.0" });
    expect(viaVariable.body.errors[0].message).toContain("ACTIVE");
  });
});

describe("Query.runners and Group.runners: who sees runners", () => {
  it("Query.runners is an administrator's view: others get GitLab's resource-not-available error", async () => {
    const { token } = await makeUserWithToken({ scopes: ["api"] });
    for (const t of [token, undefined]) {
      const r = await gql(`{ runners { count } }`, { token: t });
      expect(r.status).toBe(200);
      expect(r.body.data.runners).toBeNull();
      expect(r.body.errors[0].message).toContain("you don't have permission");
    }
  });

  it("Group.runners lists group runners and project runners of its projects to maintainers; DIRECT only the group's own", async () => {
    const { group, project, token } = await groupWithProject();
    const groupRunner = (await makeRunner({ runnerType: "group_type", groupId: group.id })).runner;
    const projectRunner = (await makeRunner({ runnerType: "project_type", projectId: project.id })).runner;
    await makeRunner({ runnerType: "instance_type" });
    const q = `query($p: ID!, $m: CiRunnerMembershipFilter) { group(fullPath: $p) { runners(membership: $m, sort: CREATED_ASC) { count nodes { id runnerType } } } }`;
    const all = await gql(q, { variables: { p: group.fullPath }, token });
    expect(all.body.data.group.runners.nodes).toEqual([
      { id: gid("Ci::Runner", groupRunner.id), runnerType: "GROUP_TYPE" },
      { id: gid("Ci::Runner", projectRunner.id), runnerType: "PROJECT_TYPE" },
    ]);
    const direct = await gql(q, { variables: { p: group.fullPath, m: "DIRECT" }, token });
    expect(direct.body.data.group.runners.count).toBe(1);
    const { token: reporter } = await memberToken("group", group.id, AccessLevel.REPORTER);
    const denied = await gql(q, { variables: { p: group.fullPath }, token: reporter });
    expect(denied.body.data.group.runners).toBeNull();
  });

  it("Group.runners takes active below 16.0 and paused from 14.8", async () => {
    const { group, token } = await groupWithProject();
    await makeRunner({ runnerType: "group_type", groupId: group.id, paused: true });
    await makeRunner({ runnerType: "group_type", groupId: group.id, paused: false });
    const q = (arg: string) => `query($p: ID!) { group(fullPath: $p) { runners(${arg}) { count } } }`;
    expect((await gql(q("active: true"), { variables: { p: group.fullPath }, token, version: "15.11" })).body.data.group.runners.count).toBe(1);
    expect((await gql(q("paused: true"), { variables: { p: group.fullPath }, token, version: "15.11" })).body.data.group.runners.count).toBe(1);
    expect((await gql(q("active: true"), { variables: { p: group.fullPath }, token, version: "16.0" })).body.errors[0].message).toContain('Unknown argument "active"');
    expect((await gql(q("paused: true"), { variables: { p: group.fullPath }, token, version: "14.7" })).body.errors[0].message).toContain('Unknown argument "paused"');
  });

  it("paginates with first/after cursors and reports count and pageInfo", async () => {
    const { token } = await admin();
    const { tag } = await tagged([{}, {}, {}]);
    const q = `query($tag: String!, $after: String) { runners(tagList: [$tag], first: 2, after: $after, sort: CREATED_ASC) { count pageInfo { hasNextPage endCursor } nodes { id } } }`;
    const p1 = await gql(q, { variables: { tag }, token });
    expect(p1.body.data.runners.count).toBe(3);
    expect(p1.body.data.runners.nodes).toHaveLength(2);
    expect(p1.body.data.runners.pageInfo.hasNextPage).toBe(true);
    const p2 = await gql(q, { variables: { tag, after: p1.body.data.runners.pageInfo.endCursor }, token });
    expect(p2.body.data.runners.nodes).toHaveLength(1);
    expect(p2.body.data.runners.pageInfo.hasNextPage).toBe(false);
    const bad = await gql(q, { variables: { tag, after: "not-a-cursor" }, token });
    expect(bad.status).toBe(200);
    expect(bad.body.errors[0].message).toContain("cursor");
  });
});

describe("Query.runner(id: CiRunnerID!): who may read one runner", () => {
  it("answers administrators and the maintainers of a project runner's project; null for others", async () => {
    const { project } = await groupWithProject();
    const runner = (await makeRunner({ runnerType: "project_type", projectId: project.id, description: "proj-runner" })).runner;
    const q = `query($id: CiRunnerID!) { runner(id: $id) { description runnerType projectCount } }`;
    const vars = { id: gid("Ci::Runner", runner.id) };
    const { token: adminToken } = await admin();
    expect((await gql(q, { variables: vars, token: adminToken })).body.data.runner).toEqual({ description: "proj-runner", runnerType: "PROJECT_TYPE", projectCount: 1 });
    const { token: maintainer } = await memberToken("project", project.id, AccessLevel.MAINTAINER, ["read_api"]);
    expect((await gql(q, { variables: vars, token: maintainer })).body.data.runner.description).toBe("proj-runner");
    const { token: developer } = await memberToken("project", project.id, AccessLevel.DEVELOPER, ["read_api"]);
    expect((await gql(q, { variables: vars, token: developer })).body.data.runner).toBeNull();
    expect((await gql(q, { variables: vars })).body.data.runner).toBeNull();
  });
});

describe("runnerUpdate: permission and scope", () => {
  it("refuses a user who does not manage the runner, and a read_api token (mutations need api)", async () => {
    const { group } = await groupWithProject();
    const runner = (await makeRunner({ runnerType: "group_type", groupId: group.id })).runner;
    const m = `mutation($id: CiRunnerID!) { runnerUpdate(input: { id: $id, paused: true }) { runner { paused } errors } }`;
    const { token: maintainer } = await memberToken("group", group.id, AccessLevel.MAINTAINER);
    const r1 = await gql(m, { variables: { id: gid("Ci::Runner", runner.id) }, token: maintainer });
    expect(r1.body.errors[0].message).toContain("you don't have permission");
    const { token: readOnly } = await memberToken("group", group.id, AccessLevel.OWNER, ["read_api"]);
    const r2 = await gql(m, { variables: { id: gid("Ci::Runner", runner.id) }, token: readOnly });
    expect(r2.body.errors[0].extensions?.code).toBe("INSUFFICIENT_SCOPE");
    const { token: owner } = await memberToken("group", group.id, AccessLevel.OWNER);
    const r3 = await gql(m, { variables: { id: gid("Ci::Runner", runner.id) }, token: owner });
    expect(r3.body.data.runnerUpdate).toEqual({ runner: { paused: true }, errors: [] });
  });

  it("answers a malformed or foreign global id with a GraphQL error, not a 500", async () => {
    const { token } = await admin();
    for (const id of ["42", "gid://gitlab/Issue/1"]) {
      const r = await gql(`mutation($id: CiRunnerID!) { runnerUpdate(input: { id: $id, paused: true }) { errors } }`, { variables: { id }, token });
      expect(r.status).toBeLessThan(500);
      expect(r.body.errors[0].message).toMatch(/not a valid|does not represent/);
    }
  });
});
