import { create } from "@bufbuild/protobuf";
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createApplication } from "../../src/db/applications";
import { getDb } from "../../src/db/client";
import { resetRegistrationToken } from "../../src/db/runners";
import { FileStreamSchema } from "../../src/gen/proto/plugin_pb";
import { CATALOGUE, catalogueEntry, type CatalogueEntry } from "../../src/versioning/catalogue";
import { stateAt } from "../../src/versioning/gate";
import { milestoneDate } from "../../src/versioning/version";
import { gid, issue, mergedMergeRequest, packageVersion, pipeline, findings } from "../graphql/fixtures";
import { gql } from "../graphql/helpers";
import { form, makeUser, makeUserWithToken, TEST_PASSWORD, unique } from "../helpers/fixtures";
import { DAY, makeGroup, makeProject, makeRunner } from "../helpers/resources";
import { expectNotice, noticeOf } from "../helpers/notices";
import { body, callAt, envAt } from "../helpers/versioned";
import { enc, header, pluginClient, workerFetch } from "../plugin/client";

/**
 * docs/deprecations.md, "How the gates work": every catalogue entry that a version serves in its
 * deprecated state marks the answer that uses it with RFC 9745 Deprecation (the moment of
 * deprecation), RFC 8594 Sunset (the removal date) and a Link rel="deprecation" to its row of
 * /help/deprecations. The list of cases is the catalogue itself: an API-affecting entry that is
 * deprecated at some version and has no request below fails this file.
 */

/** The versions tried, oldest first: the last minor before each removal, and the newest. */
const CANDIDATES = ["14.10", "15.11", "16.0"];
const servedDeprecatedAt = (e: CatalogueEntry) => CANDIDATES.find((v) => stateAt(e, v) === "deprecated") ?? null;

const admin = await makeUserWithToken({ isAdmin: true });
const db = () => getDb(env.DB);

async function ownedProject() {
  const owner = await makeUserWithToken();
  const group = await makeGroup(owner.user.id);
  const project = await makeProject(owner.user.id, { groupId: group.id, groupPath: group.fullPath });
  return { ...owner, group, project };
}

/** A runner list restricted to one fresh tag, as an administrator sees it. */
async function taggedRunner(v: string, input: Omit<Parameters<typeof makeRunner>[0], "runnerType">) {
  const tag = unique("t");
  const { runner } = await makeRunner({ runnerType: "instance_type", tagList: [tag], ...input });
  return { runner, list: () => callAt(v, `/api/v4/runners/all?tag_list=${tag}`, { token: admin.token }) };
}

const gqlRunners = async (v: string, input: Omit<Parameters<typeof makeRunner>[0], "runnerType">, fields = "status", args = "") => {
  const tag = unique("t");
  await makeRunner({ runnerType: "instance_type", tagList: [tag], ...input });
  return gql(`query($tag: String!) { runners(tagList: [$tag]${args}) { nodes { ${fields} } } }`, { variables: { tag }, token: admin.token, version: v });
};

const lint = (v: string, content: string) => callAt(v, "/api/v4/ci/lint", { ...body({ content }), token: admin.token });

/** The request that uses each entry's deprecated thing, at a version where it is deprecated. */
const USES: Record<string, (v: string) => Promise<Headers>> = {
  "oauth-implicit-grant": async (v) => {
    const { row } = await createApplication(db(), { name: unique("app"), redirectUri: "https://client.example/cb", scopes: ["read_user"] });
    const q = new URLSearchParams({ client_id: row.uid, redirect_uri: "https://client.example/cb", response_type: "token", scope: "read_user", state: "s" });
    return (await callAt(v, `/oauth/authorize?${q}`, { redirect: "manual" })).headers;
  },
  "oauth-tokens-without-expiry": async (v) => {
    const user = await makeUser();
    const { row, secret } = await createApplication(db(), { name: unique("app"), redirectUri: "https://client.example/cb", scopes: ["api"], expireAccessTokens: false });
    const res = await callAt(v, "/oauth/token", {
      method: "POST",
      body: form({ grant_type: "password", username: user.username, password: TEST_PASSWORD, client_id: row.uid, client_secret: secret, scope: "api" }),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { expires_in?: number }).expires_in).toBeUndefined();
    return res.headers;
  },
  "oauth-token-info-aliases": async (v) => {
    const user = await makeUser();
    const { row, secret } = await createApplication(db(), { name: unique("app"), redirectUri: "https://client.example/cb", scopes: ["api"] });
    const t = await callAt(v, "/oauth/token", {
      method: "POST",
      body: form({ grant_type: "password", username: user.username, password: TEST_PASSWORD, client_id: row.uid, client_secret: secret, scope: "api" }),
    });
    const { access_token } = (await t.json()) as { access_token: string };
    const res = await callAt(v, "/oauth/token/info", { token: access_token });
    expect(((await res.json()) as Record<string, unknown>).expires_in_seconds).toEqual(expect.any(Number));
    return res.headers;
  },
  "packages-pipelines-field": async (v) => {
    const { project, token } = await ownedProject();
    await packageVersion(project.id, unique("pkg"), "1.0.0", [(await pipeline(project.id)).id]);
    return (await callAt(v, `/api/v4/projects/${project.id}/packages`, { token })).headers;
  },
  "group-registry-repositories-tags": async (v) => {
    const { group, token } = await ownedProject();
    return (await callAt(v, `/api/v4/groups/${group.id}/registry/repositories?tags=true`, { token })).headers;
  },
  "runner-group-type-project-type": async (v) => {
    const { group, token } = await ownedProject();
    return (await callAt(v, `/api/v4/groups/${group.id}/runners?type=project_type`, { token })).headers;
  },
  "runner-active-field": async (v) => {
    const { runner } = await makeRunner({ runnerType: "instance_type" });
    return (await callAt(v, `/api/v4/runners/${runner.id}`, { token: admin.token })).headers;
  },
  "runner-status-filter-active-paused": async (v) => (await callAt(v, "/api/v4/runners/all?status=paused", { token: admin.token })).headers,
  "runner-status-legacy-values": async (v) => (await (await taggedRunner(v, { paused: true, contactedAt: Date.now() })).list()).headers,
  "runner-status-never-contacted": async (v) => (await callAt(v, "/api/v4/runners/all?status=not_connected", { token: admin.token })).headers,
  "runner-status-stale": async (v) => (await (await taggedRunner(v, { contactedAt: Date.now() - 100 * DAY })).list()).headers,
  "runner-registration-active": async (v) => {
    const token = await resetRegistrationToken(db(), { scopeType: "instance", scopeId: 0 });
    const res = await callAt(v, "/api/v4/runners", body({ token, active: true }));
    expect(res.status).toBe(201);
    return res.headers;
  },
  "runner-instance-to-project-conversion": async (v) => {
    const { project } = await ownedProject();
    const { runner } = await makeRunner({ runnerType: "instance_type" });
    return (await callAt(v, `/api/v4/projects/${project.id}/runners`, { ...body({ runner_id: runner.id }), token: admin.token })).headers;
  },
  "merge-request-merged-by": async (v) => {
    const { project, token, user } = await ownedProject();
    const mr = await mergedMergeRequest(project.id, user.id, user.id);
    return (await callAt(v, `/api/v4/projects/${project.id}/merge_requests/${mr.iid}`, { token })).headers;
  },
  "iterations-state-started": async (v) => {
    const { group } = await ownedProject();
    return (await callAt(v, `/api/v4/groups/${group.id}/iterations?state=started`, { token: admin.token })).headers;
  },
  "status-check-status-required": (v) => statusCheckResponse(v, undefined),
  "status-check-pass-only": (v) => statusCheckResponse(v, "approved"),
  "managed-licenses-approval-names": async (v) => {
    const { project, token } = await ownedProject();
    return (await callAt(v, `/api/v4/projects/${project.id}/managed_licenses`, { ...body({ name: unique("MIT"), approval_status: "approved" }), token })).headers;
  },
  "security-report-min-schema-version": async (v) => {
    let headers = new Headers();
    const report = JSON.stringify({ version: "13.1.0", scan: { type: "sast" }, vulnerabilities: [] });
    const data = enc(report);
    async function* parts() {
      yield create(FileStreamSchema, { Header: header(), Name: "gl-sast-report.json", Purpose: "security_report:sast", TotalSize: BigInt(data.byteLength), TotalPart: 1n, Part: 1n, Data: data });
    }
    const res = await pluginClient("connect", admin.token, workerFetch(envAt(v))).sendFile(parts(), { onHeader: (h) => (headers = h) });
    expect(res.Code).toBe(0);
    expect(res.Desc).toContain("below the minimum 14.0.0");
    return headers;
  },
  "ci-job-name-length": async (v) => (await lint(v, `${"j".repeat(300)}:\n  script: echo\n`)).headers,
  "ci-keyword-types": async (v) => (await lint(v, "types: [build]\nbuild:\n  type: build\n  script: echo\n")).headers,
  "ci-cobertura-report": async (v) => (await lint(v, "test:\n  script: echo\n  artifacts:\n    reports:\n      cobertura: coverage.xml\n")).headers,
  "ci-build-variables": async (v) => (await lint(v, "test:\n  script: echo $CI_BUILD_REF\n")).headers,
  "secret-detection-variables": async (v) => (await lint(v, "variables:\n  SECRET_DETECTION_COMMITS: abc\ntest:\n  script: echo\n")).headers,
  "ds-excluded-analyzers": async (v) => (await lint(v, "variables:\n  DS_EXCLUDED_ANALYZERS: bundler-audit\ntest:\n  script: echo\n")).headers,
  "graphql-runner-active": async (v) => (await gqlRunners(v, {}, "id active")).headers,
  "graphql-runner-status-legacy-values": async (v) => (await gqlRunners(v, { paused: true, contactedAt: Date.now() })).headers,
  "graphql-runner-status-filter-active-paused": async (v) => (await gqlRunners(v, { paused: true }, "id", ", status: PAUSED")).headers,
  "graphql-runner-status-never-contacted": async (v) => (await gqlRunners(v, { contactedAt: null })).headers,
  "graphql-runner-status-stale": async (v) => (await gqlRunners(v, { contactedAt: Date.now() - 100 * DAY })).headers,
  "graphql-package-versions": (v) => packagesQuery(v, "versions { nodes { version } }"),
  "graphql-package-pipelines": (v) => packagesQuery(v, "pipelines { nodes { id } }"),
  "graphql-package-details-versions-pipelines": async (v) => {
    const { project, token } = await ownedProject();
    const name = unique("pkg");
    const v1 = await packageVersion(project.id, name, "1.0.0", [(await pipeline(project.id)).id]);
    await packageVersion(project.id, name, "2.0.0", [(await pipeline(project.id)).id]);
    const q = `query($id: PackagesPackageID!) { package(id: $id) { versions { nodes { version pipelines { nodes { id } } } } } }`;
    return (await gql(q, { variables: { id: gid("Packages::Package", v1.id) }, token, version: v })).headers;
  },
  "graphql-merge-request-default-merge-commit-message-with-description": async (v) => {
    const { project, token, user } = await ownedProject();
    const mr = await mergedMergeRequest(project.id, user.id, user.id, "why");
    const q = `query($p: ID!, $iid: String!) { project(fullPath: $p) { mergeRequest(iid: $iid) { defaultMergeCommitMessageWithDescription } } }`;
    return (await gql(q, { variables: { p: project.pathWithNamespace, iid: String(mr.iid) }, token, version: v })).headers;
  },
  "graphql-api-fuzzing-ci-configuration-create": async (v) => {
    const { project, token } = await ownedProject();
    const m = `mutation($p: ID!) { apiFuzzingCiConfigurationCreate(input: { projectPath: $p, apiSpecificationFile: "openapi.json", scanMode: OPENAPI, target: "https://api.example.com", scanProfile: "Quick-10" }) { configurationYaml errors } }`;
    return (await gql(m, { variables: { p: project.pathWithNamespace }, token, version: v })).headers;
  },
  "graphql-security-report-finding-project-fingerprint": async (v) => {
    const { project, token } = await ownedProject();
    const p = await pipeline(project.id);
    await findings(p, [{ uuid: crypto.randomUUID(), projectFingerprint: "f".repeat(40), reportType: "sast", severity: "high", title: "SQL injection" }]);
    const q = `query($p: ID!, $iid: ID) { project(fullPath: $p) { pipeline(iid: $iid) { securityReportFindings { nodes { projectFingerprint } } } } }`;
    return (await gql(q, { variables: { p: project.pathWithNamespace, iid: String(p.iid) }, token, version: v })).headers;
  },
  "graphql-instance-statistics-measurements": async (v) =>
    (await gql(`{ instanceStatisticsMeasurements(identifier: PROJECTS) { count } }`, { token: admin.token, version: v })).headers,
  "graphql-id-argument-type": async (v) => {
    const { project, token, user } = await ownedProject();
    const i = await issue(project.id, user.id);
    return (await gql(`query($id: ID!) { issue(id: $id) { iid } }`, { variables: { id: gid("Issue", i.id) }, token, version: v })).headers;
  },
};

async function statusCheckResponse(v: string, status: string | undefined): Promise<Headers> {
  const { project, token } = await ownedProject();
  const check = (await (
    await callAt(v, `/api/v4/projects/${project.id}/external_status_checks`, { ...body({ name: "compliance", external_url: "https://checks.example.com/hook" }), token })
  ).json()) as { id: number };
  const mr = (await (await callAt(v, `/api/v4/projects/${project.id}/merge_requests`, { ...body({ source_branch: "f", target_branch: "main", title: "t" }), token })).json()) as {
    iid: number;
    sha: string;
  };
  const res = await callAt(v, `/api/v4/projects/${project.id}/merge_requests/${mr.iid}/status_check_responses`, {
    ...body({ external_status_check_id: check.id, sha: mr.sha, ...(status === undefined ? {} : { status }) }),
    token,
  });
  expect(res.status).toBe(201);
  return res.headers;
}

async function packagesQuery(v: string, fields: string): Promise<Headers> {
  const { project, token } = await ownedProject();
  await packageVersion(project.id, unique("pkg"), "1.0.0", [(await pipeline(project.id)).id]);
  const q = `query($p: ID!) { project(fullPath: $p) { packages { nodes { name ${fields} } } } }`;
  return (await gql(q, { variables: { p: project.pathWithNamespace }, token, version: v })).headers;
}

/** The ids a response's Link header points to with rel="deprecation", and the targets themselves. */
function deprecationLinks(h: Headers): { id: string; target: string }[] {
  const links = (h.get("link") ?? "").split(/,(?=\s*<)/).filter((l) => /rel="deprecation"/.test(l));
  return links.map((l) => {
    const target = /<([^>]+)>/.exec(l)![1];
    return { target, id: new URL(target).hash.slice(1) };
  });
}

describe("milestone dates the headers carry are GitLab's release dates (the 22nd)", () => {
  it("14.0 is 2021-06-22, 14.3 is 2021-09-22, 14.10 is 2022-04-22, 15.0 is 2022-05-22, 16.0 is 2023-04-22", () => {
    expect(["14.0", "14.3", "14.10", "15.0", "16.0"].map(milestoneDate)).toEqual(["2021-06-22", "2021-09-22", "2022-04-22", "2022-05-22", "2023-04-22"]);
  });
});

describe("every catalogue entry served deprecated marks the answer that uses it (Deprecation, Sunset, Link rel=deprecation)", () => {
  const served = CATALOGUE.filter((e) => e.affectsApi && servedDeprecatedAt(e) !== null);
  let page: string | null = null;

  it("the catalogue has entries served deprecated, and each has a request here", () => {
    expect(served.length).toBeGreaterThan(30);
    expect(served.filter((e) => !USES[e.id]).map((e) => e.id)).toEqual([]);
  });

  it.each(served.map((e) => [e.id, servedDeprecatedAt(e)!] as const))("%s at %s", async (id, version) => {
    const entry = catalogueEntry(id);
    const headers = await USES[id](version);
    const links = deprecationLinks(headers);
    // The Link names this entry's row of the schedule page at the request's origin.
    expect(links.map((l) => l.target)).toContain(`http://localhost/help/deprecations#${id}`);
    // Several entries in one answer: the earliest deprecation and the earliest sunset of those linked.
    const used = links.map((l) => catalogueEntry(l.id));
    for (const e of used) expect(stateAt(e, version)).toBe("deprecated");
    expectNotice(headers, id);
    // This entry's own values bound the answer's: nothing later than its deprecation or its sunset.
    expect(Number(headers.get("deprecation")!.slice(1))).toBeLessThanOrEqual(Number(noticeOf([id]).deprecation.slice(1)));
    const own = noticeOf([id]).sunset;
    if (own) expect(Date.parse(headers.get("sunset")!)).toBeLessThanOrEqual(Date.parse(own));
    // The Link target exists: the schedule page has the entry's anchor.
    page ??= await (await callAt(version, "/help/deprecations")).text();
    expect(page).toContain(`id="${id}"`);
  });

  it("oauth-token-info-aliases: deprecated with no removal date, so Deprecation and Link but no Sunset", async () => {
    expect(catalogueEntry("oauth-token-info-aliases").date).toBeNull();
    const headers = await USES["oauth-token-info-aliases"]("16.0");
    expectNotice(headers, "oauth-token-info-aliases");
    expect(headers.get("deprecation")).not.toBeNull();
    expect(headers.get("sunset")).toBeNull();
  });

  it("oauth-tokens-without-expiry: from 15.0 tokens expire, and the token answer carries no notice", async () => {
    const user = await makeUser();
    const { row, secret } = await createApplication(db(), { name: unique("app"), redirectUri: "https://client.example/cb", scopes: ["api"], expireAccessTokens: false });
    const res = await callAt("15.0", "/oauth/token", {
      method: "POST",
      body: form({ grant_type: "password", username: user.username, password: TEST_PASSWORD, client_id: row.uid, client_secret: secret, scope: "api" }),
    });
    expect(((await res.json()) as { expires_in?: number }).expires_in).toEqual(expect.any(Number));
    expect(res.headers.get("deprecation")).toBeNull();
  });

  it("runner-status-stale: at 14.5 (announced) a runner silent for 100 days is offline and unmarked", async () => {
    const res = await (await taggedRunner("14.5", { contactedAt: Date.now() - 100 * DAY })).list();
    const list = (await res.json()) as { status: string }[];
    expect(list.map((r) => r.status)).toEqual(["offline"]);
    expect(deprecationLinks(res.headers).map((l) => l.id)).not.toContain("runner-status-stale");
  });
});
