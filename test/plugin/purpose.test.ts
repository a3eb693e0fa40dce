import { create } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { FileStreamSchema, type Header } from "../../src/gen/proto/plugin_pb";
import { makeUserWithToken } from "../helpers/fixtures";
import { envAt } from "../helpers/versioned";
import { asJson, enc, header, listKeys, pluginClient, workerFetch } from "./client";
import { SCHEDULED_TYPES, validReport } from "./security-report-fixtures";

/** One-part upload of a text file with a Purpose. */
function upload(token: string, version: string, purpose: string, text: string, h: Header = header()) {
  const bytes = enc(text);
  const client = pluginClient("connect", token, workerFetch(envAt(version)));
  async function* one() {
    yield create(FileStreamSchema, { Header: h, Name: "report.json", Purpose: purpose, TotalSize: BigInt(bytes.byteLength), TotalPart: 1n, Part: 1n, Data: bytes });
  }
  return client.sendFile(one());
}

function report(version: string, type = "sast", extra: Record<string, unknown> = {}) {
  const tool = { id: "semgrep", name: "Semgrep", vendor: { name: "GitLab" }, version: "1.0.0" };
  return JSON.stringify({
    version,
    scan: { analyzer: tool, scanner: tool, type, start_time: "2022-05-01T10:00:00", end_time: "2022-05-01T10:01:00", status: "success" },
    vulnerabilities: [{ id: "v1", severity: "High", identifiers: [{ type: "cwe", name: "CWE-79", value: "79" }], location: { file: "app.js", start_line: 3 } }],
    ...extra,
  });
}

describe("Purpose security_report:<type> (spec part b: Errors and Limits; catalogue security-report-min-schema-version)", () => {
  it("a valid 15.0.0 SAST report is stored with its findings at every version", async () => {
    for (const version of ["14.9", "14.10", "15.0", "16.0"]) {
      const { token } = await makeUserWithToken();
      const res = await upload(token, version, "security_report:sast", report("15.0.0"));
      expect(res.Code, `${version}: ${res.Desc}`).toBe(0);
      expect(asJson(res.Data).processing).toMatchObject({ kind: "security_report", type: "sast", schema_version: "15.0.0", findings: 1, warnings: [] });
    }
  });

  it("from 15.0 a report with schema version below 14.0.0 is not processed (Code 3) and nothing is kept", async () => {
    const { user, token } = await makeUserWithToken();
    const res = await upload(token, "15.0", "security_report:sast", report("13.1.0"));
    expect(res.Code).toBe(3);
    expect(res.Desc).toContain("below the minimum 14.0.0");
    expect(await listKeys(`plugin-files/${user.id}/`)).toEqual([]);
  });

  it("from 15.0 a report failing its declared schema is not processed (Code 3)", async () => {
    const { user, token } = await makeUserWithToken();
    const bad = JSON.parse(report("15.0.0"));
    delete bad.vulnerabilities[0].identifiers;
    const res = await upload(token, "16.0", "security_report:sast", JSON.stringify(bad));
    expect(res.Code).toBe(3);
    expect(res.Desc).toContain("identifiers");
    expect(await listKeys(`plugin-files/${user.id}/`)).toEqual([]);
  });

  it("at 14.10 the same reports are stored with a warning (Desc and processing.warnings)", async () => {
    const { user, token } = await makeUserWithToken();
    const res = await upload(token, "14.10", "security_report:sast", report("13.1.0"));
    expect(res.Code).toBe(0);
    expect(res.Desc).toContain("below the minimum 14.0.0");
    expect(asJson(res.Data).processing.warnings[0]).toContain("below the minimum");
    expect((await listKeys(`plugin-files/${user.id}/`)).length).toBe(1);
  });

  it("before 14.10 an old report is stored without a warning", async () => {
    const { token } = await makeUserWithToken();
    const res = await upload(token, "14.9", "security_report:sast", report("13.1.0"));
    expect(res.Code).toBe(0);
    expect(res.Desc).toBe("");
    expect(asJson(res.Data).processing.warnings).toEqual([]);
  });

  it("every scheduled type through SendFile: a report failing its declared schema is Code 3 from 15.0, stored with a warning at 14.10, a 14.1.0 report is stored", async () => {
    const { user, token } = await makeUserWithToken();
    for (const type of SCHEDULED_TYPES) {
      const bad = validReport(type, "15.0.0");
      delete (bad.scan as Record<string, unknown>).analyzer;
      const refused = await upload(token, "15.0", `security_report:${type}`, JSON.stringify(bad));
      expect(refused.Code, type).toBe(3);
      expect(refused.Desc, type).toContain("analyzer");
      const warned = await upload(token, "14.10", `security_report:${type}`, JSON.stringify(bad));
      expect(warned.Code, type).toBe(0);
      expect(warned.Desc, type).toContain("analyzer");
      expect(asJson(warned.Data).processing.warnings.join(" "), type).toContain("analyzer");
      const old = await upload(token, "15.0", `security_report:${type}`, JSON.stringify(validReport(type, "14.1.0")));
      expect(old.Code, `${type}: ${old.Desc}`).toBe(0);
      expect(asJson(old.Data).processing).toMatchObject({ type, schema_version: "14.1.0", warnings: [] });
    }
    expect((await listKeys(`plugin-files/${user.id}/`)).length).toBe(SCHEDULED_TYPES.length * 2);
  });

  it("a report whose scan.type differs from the Purpose's type fails its schema", async () => {
    const { token } = await makeUserWithToken();
    const res = await upload(token, "15.0", "security_report:dast", report("15.0.0", "sast"));
    expect(res.Code).toBe(3);
  });

  it("dependency_scanning requires dependency_files", async () => {
    const { token } = await makeUserWithToken();
    const loc = { file: "package-lock.json", dependency: { package: { name: "x" }, version: "1" } };
    const base = JSON.parse(report("15.0.0", "dependency_scanning"));
    base.vulnerabilities[0].location = loc;
    expect((await upload(token, "15.0", "security_report:dependency_scanning", JSON.stringify(base))).Code).toBe(3);
    base.dependency_files = [{ path: "package-lock.json", package_manager: "npm", dependencies: [] }];
    const ok = await upload(token, "15.0", "security_report:dependency_scanning", JSON.stringify(base));
    expect(ok.Code, ok.Desc).toBe(0);
  });

  it("an unknown report type or a report that is not JSON is Code 3 at every version", async () => {
    const { token } = await makeUserWithToken();
    for (const version of ["14.9", "16.0"]) {
      expect((await upload(token, version, "security_report:license", report("15.0.0"))).Code).toBe(3);
      expect((await upload(token, version, "security_report:sast", "{not json")).Code).toBe(3);
    }
  });
});

describe("Purpose ci_config (lints with the rules of POST /ci/lint)", () => {
  it("a pipeline using `types` is stored with the lint result: an error from 15.0", async () => {
    const { token } = await makeUserWithToken();
    const yaml = "types:\n  - build\njob1:\n  type: build\n  script: echo hi\n";
    const at16 = asJson((await upload(token, "16.0", "ci_config", yaml)).Data).processing;
    expect(at16).toMatchObject({ kind: "ci_config", valid: false });
    expect(at16.errors.join(" ")).toContain("types");
    const at14 = await upload(token, "14.10", "ci_config", yaml);
    expect(at14.Code).toBe(0);
    expect(asJson(at14.Data).processing.valid).toBe(true);
  });

  it("a clean pipeline is valid", async () => {
    const { token } = await makeUserWithToken();
    const res = await upload(token, "16.0", "ci_config", "stages: [build]\nbuild-job:\n  stage: build\n  script: make\n");
    expect(asJson(res.Data).processing).toMatchObject({ valid: true, errors: [] });
  });
});

describe("Any other Purpose is stored as is", () => {
  it("no processing field and the bytes kept", async () => {
    const { token } = await makeUserWithToken();
    const res = await upload(token, "16.0", "notes", "{not json at all");
    expect(res.Code).toBe(0);
    expect(asJson(res.Data).processing).toBeUndefined();
  });
});
