import { describe, expect, it } from "vitest";
import { lintPipeline } from "../../src/domain/ci-lint";
import { makeUserWithToken } from "../helpers/fixtures";
import { addMemberTo, makeProject } from "../helpers/resources";
import { body, callAt } from "../helpers/versioned";

/** CI lint: the schedule's pipeline rules by version (spec part b, Errors, Limits, Versioning). */
const user = await makeUserWithToken({ scopes: ["read_api"] });
type Lint = { valid: boolean; errors: string[]; warnings: string[]; status?: string };
const lint = async (version: string, content: string): Promise<Lint> => {
  const res = await callAt(version, "/api/v4/ci/lint", { ...body({ content }), token: user.token });
  expect(res.status).toBe(200);
  return res.json();
};

describe("ci-job-name-length", () => {
  const content = `${"j".repeat(256)}:\n  script: echo\n`;
  it("a job name over 255 characters is a warning at 14.10", async () => {
    const r = await lint("14.10", content);
    expect(r).toMatchObject({ valid: true, status: "valid", errors: [] });
    expect(r.warnings.join()).toContain("255");
  });
  it("and an error from 15.0 (the pipeline stops working)", async () => {
    const r = await lint("15.0", content);
    expect(r.valid).toBe(false);
    expect(r.errors.join()).toContain("too long");
    expect((await lint("15.0", `${"j".repeat(255)}:\n  script: echo\n`)).valid).toBe(true);
  });
});

describe("ci-keyword-types", () => {
  const content = "types: [build, test]\ncompile:\n  type: build\n  script: make\n";
  it("types and type are warnings at 14.10 and behave as stages and stage", async () => {
    const r = await lint("14.10", content);
    expect(r.valid).toBe(true);
    expect(r.warnings.length).toBe(2);
  });
  it("are errors from 15.0 (use stage and stages)", async () => {
    const r = await lint("15.0", content);
    expect(r.valid).toBe(false);
    expect(r.errors.join()).toContain("types");
    expect(r.errors.join()).toContain("stage");
  });
});

describe("ci-cobertura-report", () => {
  const content = "test:\n  script: pytest\n  artifacts:\n    reports:\n      cobertura: coverage.xml\n";
  it("artifacts:reports:cobertura is a warning at 14.10 and an error from 15.0 naming coverage_report", async () => {
    const old = await lint("14.10", content);
    expect(old.valid).toBe(true);
    expect(old.warnings.join()).toContain("coverage_report");
    const now = await lint("15.0", content);
    expect(now.valid).toBe(false);
    expect(now.errors.join()).toContain("coverage_report");
  });
});

describe("ci-build-variables", () => {
  const content = "build:\n  script: echo $CI_BUILD_REF_NAME\n";
  it("CI_BUILD_* is deprecated at 14.10 and removed (unset) from 15.0, naming CI_JOB_*", async () => {
    const old = await lint("14.10", content);
    expect(old.warnings.join()).toMatch(/deprecated.*CI_JOB_REF_NAME/);
    const now = await lint("15.0", content);
    expect(now.valid).toBe(true);
    expect(now.warnings.join()).toMatch(/removed.*not set.*CI_JOB_REF_NAME/);
  });
});

describe("secret-detection-variables", () => {
  const content = "variables:\n  SECRET_DETECTION_COMMITS: abc\nsecret_detection:\n  script: scan\n";
  it("the removed variables are deprecated at 14.10 and ignored from 15.0", async () => {
    expect((await lint("14.10", content)).warnings.join()).toContain("deprecated");
    const now = await lint("15.0", content);
    expect(now.valid).toBe(true);
    expect(now.warnings.join()).toContain("ignored");
    expect(now.warnings.join()).toContain("SECRET_DETECTION_HISTORIC_SCAN");
  });
});

describe("ds-excluded-analyzers", () => {
  const content = 'variables:\n  DS_EXCLUDED_ANALYZERS: "gemnasium-maven, bundler-audit"\ndependency_scanning:\n  script: scan\n';
  it("naming bundler-audit is a warning at 14.10 and an error from 15.0", async () => {
    expect((await lint("14.10", content)).warnings.join()).toContain("bundler-audit");
    const now = await lint("15.0", content);
    expect(now.valid).toBe(false);
    expect(now.errors.join()).toContain("bundler-audit");
  });
});

describe("CI lint: structure, shapes and errors", () => {
  it("lintPipeline reports YAML syntax errors, a missing script, an unknown stage and no visible jobs", () => {
    expect(lintPipeline("a: [", "16.0").errors[0]).toMatch(/^Invalid configuration format/);
    expect(lintPipeline("job: {stage: test}", "16.0").errors.join()).toContain("script");
    expect(lintPipeline("job: {stage: nope, script: x}", "16.0").errors.join()).toContain("chosen stage does not exist");
    expect(lintPipeline(".hidden: {script: x}", "16.0").errors).toEqual(["jobs config should contain at least one visible job"]);
    expect(lintPipeline("", "16.0").valid).toBe(false);
    expect(lintPipeline("- a\n- b", "16.0").errors).toEqual(["Invalid configuration format"]);
  });
  it("POST /projects/:id/ci/lint answers valid, errors, warnings, merged_yaml (developer)", async () => {
    const owner = await makeUserWithToken();
    const project = await makeProject(owner.user.id);
    const res = await callAt("16.0", `/api/v4/projects/${project.id}/ci/lint`, { ...body({ content: "build:\n  script: make\n" }), token: owner.token });
    const j = (await res.json()) as Record<string, any>;
    expect(j).toMatchObject({ valid: true, errors: [], warnings: [], includes: [] });
    expect(j.merged_yaml).toContain("script: make");
    const guest = await makeUserWithToken();
    await addMemberTo("project", project.id, guest.user.id, 10);
    expect((await callAt("16.0", `/api/v4/projects/${project.id}/ci/lint`, { ...body({ content: "a: b" }), token: guest.token })).status).toBe(403);
  });
  it("missing content is 400 content is missing; no token is 401", async () => {
    const res = await callAt("16.0", "/api/v4/ci/lint", { ...body({}), token: user.token });
    expect(res.status).toBe(400);
    expect((await res.json()) as Record<string, any>).toEqual({ error: "content is missing" });
    expect((await callAt("16.0", "/api/v4/ci/lint", body({ content: "x" }))).status).toBe(401);
  });
});
