import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { AccessLevel } from "../../src/domain/access";
import { makeUserWithToken, unique } from "../helpers/fixtures";
import { makeRunner } from "../helpers/resources";
import { findings, gid, groupWithProject, issue, memberToken, mergedMergeRequest, pipeline } from "./fixtures";
import { fieldsOf, gql } from "./helpers";

/** Schedule part b, GraphQL changes: the rows other than runners and packages, on both sides of 15.0. */

describe("graphql-merge-request-default-merge-commit-message-with-description: removed in 15.0", () => {
  const q = (fields: string) => `query($p: ID!, $iid: String!) { project(fullPath: $p) { mergeRequest(iid: $iid) { iid state mergeUser { username } ${fields} } } }`;

  it("14.10 answers the message with the description, deprecated", async () => {
    const { owner, project, token } = await groupWithProject();
    const mr = await mergedMergeRequest(project.id, owner.id, owner.id, "Why the feature matters.");
    const r = await gql(q("defaultMergeCommitMessage defaultMergeCommitMessageWithDescription"), {
      variables: { p: project.pathWithNamespace, iid: String(mr.iid) },
      token,
      version: "14.10",
    });
    const got = r.body.data.project.mergeRequest;
    expect(got.state).toBe("merged");
    expect(got.mergeUser.username).toBe(owner.username);
    expect(got.defaultMergeCommitMessage).toBe(`Merge branch 'feature' into 'main'\n\nAdd the feature\n\nSee merge request ${project.pathWithNamespace}!${mr.iid}`);
    expect(got.defaultMergeCommitMessageWithDescription).toBe(
      `Merge branch 'feature' into 'main'\n\nAdd the feature\n\nWhy the feature matters.\n\nSee merge request ${project.pathWithNamespace}!${mr.iid}`,
    );
    expect(r.headers.get("link")).toContain("graphql-merge-request-default-merge-commit-message-with-description");
  });

  it("15.0 fails validation for it; defaultMergeCommitMessage still answers", async () => {
    const { owner, project, token } = await groupWithProject();
    const mr = await mergedMergeRequest(project.id, owner.id, owner.id);
    expect(await fieldsOf("MergeRequest", "15.0")).not.toContain("defaultMergeCommitMessageWithDescription");
    const r = await gql(q("defaultMergeCommitMessageWithDescription"), { variables: { p: project.pathWithNamespace, iid: String(mr.iid) }, token, version: "15.0" });
    expect(r.body.errors[0].message).toContain('Cannot query field "defaultMergeCommitMessageWithDescription" on type "MergeRequest".');
    const ok = await gql(q("defaultMergeCommitMessage"), { variables: { p: project.pathWithNamespace, iid: String(mr.iid) }, token, version: "15.0" });
    expect(ok.body.data.project.mergeRequest.defaultMergeCommitMessage).toContain("Merge branch 'feature' into 'main'");
  });
});

describe("graphql-api-fuzzing-ci-configuration-create: the mutation is removed in 15.0", () => {
  const m = `mutation($p: ID!) { apiFuzzingCiConfigurationCreate(input: { projectPath: $p, apiSpecificationFile: "openapi.json", scanMode: OPENAPI, target: "https://api.example.com", authUsername: "FUZZ_USER", authPassword: "FUZZ_PASS", scanProfile: "Quick-10" }) { configurationYaml gitlabCiYamlEditPath errors } }`;

  it("14.10 generates the configuration for a developer (credentials only as variable references)", async () => {
    const { project } = await groupWithProject();
    const { token } = await memberToken("project", project.id, AccessLevel.DEVELOPER);
    const r = await gql(m, { variables: { p: project.pathWithNamespace }, token, version: "14.10" });
    const out = r.body.data.apiFuzzingCiConfigurationCreate;
    expect(out.errors).toEqual([]);
    expect(parse(out.configurationYaml)).toEqual({
      stages: ["fuzz"],
      include: [{ template: "API-Fuzzing.gitlab-ci.yml" }],
      variables: {
        FUZZAPI_HTTP_PASSWORD: "$FUZZ_PASS",
        FUZZAPI_HTTP_USERNAME: "$FUZZ_USER",
        FUZZAPI_PROFILE: "Quick-10",
        FUZZAPI_TARGET_URL: "https://api.example.com",
        FUZZAPI_OPENAPI: "openapi.json",
      },
    });
    expect(out.gitlabCiYamlEditPath).toBe(`/${project.pathWithNamespace}/-/ci/editor`);
    expect(r.headers.get("link")).toContain("graphql-api-fuzzing-ci-configuration-create");
  });

  it("14.10 refuses a reporter", async () => {
    const { project } = await groupWithProject();
    const { token } = await memberToken("project", project.id, AccessLevel.REPORTER);
    const r = await gql(m, { variables: { p: project.pathWithNamespace }, token, version: "14.10" });
    expect(r.body.errors[0].message).toContain("you don't have permission");
  });

  it("15.0: the mutation is not in the schema", async () => {
    const { project, token } = await groupWithProject();
    expect(await fieldsOf("Mutation", "15.0")).not.toContain("apiFuzzingCiConfigurationCreate");
    const r = await gql(m, { variables: { p: project.pathWithNamespace }, token, version: "15.0" });
    expect(r.body.errors[0].message).toContain('Cannot query field "apiFuzzingCiConfigurationCreate" on type "Mutation".');
  });
});

describe("graphql-security-report-finding-project-fingerprint: deprecated, uuid carries the new fingerprint", () => {
  it("serves projectFingerprint (deprecated, with a Deprecation header) and uuid at 14.10 and 16.0", async () => {
    const { project, token } = await groupWithProject();
    const p = await pipeline(project.id);
    const uuid = crypto.randomUUID();
    await findings(p, [
      { uuid, projectFingerprint: "f".repeat(40), reportType: "sast", severity: "high", title: "SQL injection" },
      { uuid: crypto.randomUUID(), projectFingerprint: "e".repeat(40), reportType: "secret_detection", severity: "critical", title: "Leaked key" },
    ]);
    for (const version of ["14.10", "16.0"]) {
      const r = await gql(
        `query($p: ID!, $iid: ID) { project(fullPath: $p) { pipeline(iid: $iid) { securityReportFindings(reportType: ["sast"]) { nodes { uuid projectFingerprint title severity reportType } } } } }`,
        { variables: { p: project.pathWithNamespace, iid: String(p.iid) }, token, version },
      );
      expect(r.body.data.project.pipeline.securityReportFindings.nodes).toEqual([
        { uuid, projectFingerprint: "f".repeat(40), title: "SQL injection", severity: "HIGH", reportType: "SAST" },
      ]);
      expect(r.headers.get("link")).toContain("graphql-security-report-finding-project-fingerprint");
      const intro = await gql(`{ __type(name: "PipelineSecurityReportFinding") { fields(includeDeprecated: true) { name isDeprecated deprecationReason } } }`, { version });
      const fields = intro.body.data.__type.fields;
      expect(fields.find((f: any) => f.name === "projectFingerprint")).toMatchObject({ isDeprecated: true, deprecationReason: expect.stringContaining("uuid") });
      expect(fields.find((f: any) => f.name === "uuid").isDeprecated).toBe(false);
    }
    // Asking only for uuid uses nothing deprecated.
    const clean = await gql(`query($p: ID!) { project(fullPath: $p) { pipelines { nodes { securityReportFindings { count nodes { uuid } } } } } }`, {
      variables: { p: project.pathWithNamespace },
      token,
    });
    expect(clean.body.data.project.pipelines.nodes[0].securityReportFindings.count).toBe(2);
    expect(clean.headers.get("deprecation")).toBeNull();
  });
});

describe("graphql-instance-statistics-measurements: renamed usageTrendsMeasurements, old name removed in 15.0", () => {
  const q = (field: string) => `{ ${field}(identifier: PROJECTS) { count nodes { count identifier recordedAt } } }`;

  it("14.10 answers both names with the same measurements (administrators)", async () => {
    const { token } = await makeUserWithToken({ isAdmin: true });
    const newer = await gql(q("usageTrendsMeasurements"), { token, version: "14.10" });
    const older = await gql(q("instanceStatisticsMeasurements"), { token, version: "14.10" });
    expect(newer.body.data.usageTrendsMeasurements.count).toBeGreaterThanOrEqual(1);
    expect(newer.body.data.usageTrendsMeasurements.nodes[0]).toMatchObject({ identifier: "PROJECTS", count: expect.any(Number) });
    expect(older.body.data.instanceStatisticsMeasurements).toEqual(newer.body.data.usageTrendsMeasurements);
    expect(older.headers.get("link")).toContain("graphql-instance-statistics-measurements");
  });

  it("15.0: the old name fails validation; non-administrators get no statistics", async () => {
    const { token } = await makeUserWithToken({ isAdmin: true });
    const r = await gql(q("instanceStatisticsMeasurements"), { token, version: "15.0" });
    expect(r.body.errors[0].message).toContain('Cannot query field "instanceStatisticsMeasurements" on type "Query".');
    expect((await gql(q("usageTrendsMeasurements"), { token, version: "15.0" })).body.data.usageTrendsMeasurements.count).toBeGreaterThanOrEqual(1);
    const { token: user } = await makeUserWithToken();
    const denied = await gql(q("usageTrendsMeasurements"), { token: user, version: "15.0" });
    expect(denied.body.data.usageTrendsMeasurements).toBeNull();
  });

  it("records the day's counts once under concurrent first reads", async () => {
    const { token } = await makeUserWithToken({ isAdmin: true });
    const results = await Promise.all(Array.from({ length: 10 }, () => gql(q("usageTrendsMeasurements"), { token })));
    const counts = results.map((r) => r.body.data.usageTrendsMeasurements.count);
    expect(new Set(counts).size).toBe(1);
  });
});

describe("graphql-id-argument-type: ID variables in specific-ID positions are accepted below 15.0 only", () => {
  it("14.10 accepts $id: ID! for Query.issue(id: IssueID!) (with a Deprecation header); 15.0 fails validation", async () => {
    const { owner, project, token } = await groupWithProject();
    const i = await issue(project.id, owner.id, unique("title"));
    const legacy = `query($id: ID!) { issue(id: $id) { iid title } }`;
    const old = await gql(legacy, { variables: { id: gid("Issue", i.id) }, token, version: "14.10" });
    expect(old.body.errors).toBeUndefined();
    expect(old.body.data.issue).toEqual({ iid: String(i.iid), title: i.title });
    expect(old.headers.get("link")).toContain("graphql-id-argument-type");
    const now = await gql(legacy, { variables: { id: gid("Issue", i.id) }, token, version: "15.0" });
    expect(now.body.data).toBeUndefined();
    expect(now.body.errors[0].message).toBe('Variable "$id" of type "ID!" used in position expecting type "IssueID!".');
  });

  it("15.0 accepts the specific type and an inline value; arguments declared ID (Query.project(fullPath: ID!)) are unaffected", async () => {
    const { owner, project, token } = await groupWithProject();
    const i = await issue(project.id, owner.id);
    const typed = await gql(`query($id: IssueID!) { issue(id: $id) { iid } }`, { variables: { id: gid("Issue", i.id) }, token, version: "15.0" });
    expect(typed.body.data.issue.iid).toBe(String(i.iid));
    const inline = await gql(`{ issue(id: "${gid("Issue", i.id)}") { iid } }`, { token, version: "15.0" });
    expect(inline.body.data.issue.iid).toBe(String(i.iid));
    const project15 = await gql(`query($p: ID!) { project(fullPath: $p) { fullPath } }`, { variables: { p: project.pathWithNamespace }, token, version: "15.0" });
    expect(project15.body.data.project.fullPath).toBe(project.pathWithNamespace);
  });

  it("applies to input fields too (runnerUpdate(input: { id: $id }) with $id: ID!), and a String variable is never accepted", async () => {
    const { token } = await makeUserWithToken({ isAdmin: true });
    const runner = (await makeRunner({ runnerType: "instance_type" })).runner;
    const m = (type: string) => `mutation($id: ${type}) { runnerUpdate(input: { id: $id, description: "x" }) { errors } }`;
    const vars = { id: gid("Ci::Runner", runner.id) };
    expect((await gql(m("ID!"), { variables: vars, token, version: "14.10" })).body.data.runnerUpdate.errors).toEqual([]);
    expect((await gql(m("ID!"), { variables: vars, token, version: "15.0" })).body.errors[0].message).toContain('used in position expecting type "CiRunnerID!"');
    expect((await gql(m("String!"), { variables: vars, token, version: "14.10" })).body.errors[0].message).toContain('used in position expecting type "CiRunnerID!"');
  });

  it("below 15.0 a plain-ID variable with a malformed value is refused by the resolver, not a 500", async () => {
    const { token } = await makeUserWithToken();
    const r = await gql(`query($id: ID!) { issue(id: $id) { iid } }`, { variables: { id: "gid://gitlab/Project/1" }, token, version: "14.10" });
    expect(r.status).toBe(200);
    expect(r.body.errors[0].message).toContain("does not represent an instance of Issue");
  });
});

describe("createIssue and Query.issue visibility", () => {
  it("creates issues with consecutive iids under concurrency, and hides private issues from strangers", async () => {
    const { project, token } = await groupWithProject();
    const m = `mutation($p: ID!, $t: String!) { createIssue(input: { projectPath: $p, title: $t }) { issue { id iid } errors } }`;
    const made = await Promise.all(Array.from({ length: 5 }, (_, n) => gql(m, { variables: { p: project.pathWithNamespace, t: `t${n}` }, token })));
    const iids = made.map((r) => Number(r.body.data.createIssue.issue.iid)).sort();
    expect(iids).toEqual([1, 2, 3, 4, 5]);
    const blank = await gql(m, { variables: { p: project.pathWithNamespace, t: "  " }, token });
    expect(blank.body.data.createIssue).toEqual({ issue: null, errors: ["Title can't be blank"] });
    const { token: stranger } = await makeUserWithToken({ scopes: ["read_api"] });
    const hidden = await gql(`query($id: IssueID!) { issue(id: $id) { iid } }`, { variables: { id: made[0].body.data.createIssue.issue.id }, token: stranger });
    expect(hidden.body.data.issue).toBeNull();
  });
});
