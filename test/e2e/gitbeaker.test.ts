import { Gitlab } from "@gitbeaker/rest";
import { beforeAll, describe, expect, inject, it } from "vitest";

/**
 * End to end (issue 5, Tests): a GitLab client library from npm (@gitbeaker/rest) drives the
 * /api/v4 resources of the announced changes against `npm start` (service version 16.0, demo data).
 */
const baseURL = inject("baseURL");
let api: InstanceType<typeof Gitlab<false>>;
let token: string;

beforeAll(async () => {
  const res = await fetch(`${baseURL}/oauth/token`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ grant_type: "password", username: "root", password: inject("rootPassword") }),
  });
  expect(res.status).toBe(200);
  token = ((await res.json()) as { access_token: string }).access_token;
  api = new Gitlab({ host: baseURL, oauthToken: token });
});

describe("gitbeaker drives /api/v4 against npm start", () => {
  it("reads the demo data: group, project, runners in every status, packages, registry, merge requests, iterations, licenses", async () => {
    const group = await api.Groups.show("demo");
    expect(group.full_path).toBe("demo");
    const project = await api.Projects.show("demo/demo-app");
    const runners = await api.Runners.all({ perPage: 100 });
    expect(new Set(runners.map((r) => r.status))).toEqual(new Set(["online", "offline", "stale", "never_contacted"]));
    expect(runners.every((r) => !("active" in r))).toBe(true);
    const packages = await api.Packages.all({ projectId: project.id });
    expect(packages.length).toBe(2);
    expect(packages.every((p) => !("pipelines" in p))).toBe(true);
    const repos = await api.ContainerRegistry.allRepositories({ projectId: project.id, tagsCount: true });
    expect(repos.map((r) => r.tags_count)).toEqual([2, 3]);
    const repo = await api.ContainerRegistry.showRepository(repos[0].id, { tags: true, tagCount: true });
    expect(repo).toMatchObject({ tags_count: 2 });
    const merged = await api.MergeRequests.all({ projectId: project.id, state: "merged" });
    expect(merged[0].merge_user).toMatchObject({ username: "root" });
    expect(merged[0]).not.toHaveProperty("merged_by");
    const iterations = await api.GroupIterations.all(group.id, { state: "current" });
    expect(iterations).toHaveLength(1);
    const res = await fetch(`${baseURL}/api/v4/projects/${project.id}/managed_licenses`, { headers: { Authorization: `Bearer ${token}` } });
    expect(((await res.json()) as { approval_status: string }[]).map((l) => l.approval_status)).toEqual(["allowed", "denied"]);
  });

  it("creates a group, project, runner, package, merge request and status check response", async () => {
    const suffix = Date.now().toString(36);
    const group = await api.Groups.create(`e2e ${suffix}`, `e2e-${suffix}`);
    const project = await api.Projects.create({ name: `app-${suffix}`, namespaceId: group.id });
    expect(project.path_with_namespace).toBe(`e2e-${suffix}/app-${suffix}`);

    const reg = await fetch(`${baseURL}/api/v4/projects/${project.id}/runners/reset_registration_token`, { method: "POST", headers: { Authorization: `Bearer ${token}` } });
    const registrationToken = ((await reg.json()) as { token: string }).token;
    const created = await api.Runners.register(registrationToken, { description: "e2e runner", paused: true, tagList: ["e2e"] });
    await api.Runners.verify({ token: created.token });
    const shown = await api.Runners.show(created.id);
    expect(shown).toMatchObject({ status: "online", paused: true, tag_list: ["e2e"] });
    const edited = await api.Runners.edit(created.id, { paused: false });
    expect(edited.paused).toBe(false);
    const projectRunners = await api.Runners.all({ projectId: project.id, type: "project_type" });
    expect(projectRunners.map((r) => r.id)).toEqual([created.id]);
    await expect(api.Runners.all({ groupId: group.id, type: "project_type" })).rejects.toThrow();

    // Spec: OAuth tokens do not authenticate to the package registry; a personal access token does.
    const file = { filename: "tool.txt", content: new Blob(["e2e bytes"]) };
    await expect(api.PackageRegistry.publish(project.id, "e2e-tool", "0.1.0", file)).rejects.toThrow(/401/);
    const me = await api.Users.showCurrentUser();
    const expiresAt = new Date(Date.now() + 7 * 86400_000).toISOString().slice(0, 10);
    const pat = await api.PersonalAccessTokens.create(me.id, "e2e packages", ["api"], { expiresAt });
    const patApi = new Gitlab({ host: baseURL, token: pat.token as string });
    await patApi.PackageRegistry.publish(project.id, "e2e-tool", "0.1.0", file);
    const dl = await fetch(`${baseURL}/api/v4/projects/${project.id}/packages/generic/e2e-tool/0.1.0/tool.txt`, { headers: { "PRIVATE-TOKEN": pat.token as string } });
    expect(await dl.text()).toBe("e2e bytes");

    const mr = await api.MergeRequests.create(project.id, "feature", "main", "E2E change");
    const check = await api.ExternalStatusChecks.create(project.id, "e2e check", "https://example.com/check");
    await api.ExternalStatusChecks.set(project.id, mr.iid, mr.sha, check.id, { status: "pass" });
    const accepted = await api.MergeRequests.accept(project.id, mr.iid);
    expect(accepted).toMatchObject({ state: "merged", merge_user: { username: "root" } });

    const lint = await api.Lint.lint(project.id, "test:\n  script: echo $CI_BUILD_REF\n");
    expect(lint).toMatchObject({ valid: true });
    expect(lint.warnings.join()).toContain("CI_JOB_REF");
  });
});
