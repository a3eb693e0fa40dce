import { describe, expect, it } from "vitest";
import { checkSecurityReport } from "../../src/domain/security-report";
import { PUBLISHED_VERSIONS } from "../../src/domain/security-report-schemas";
import { SCHEDULED_TYPES, validReport } from "./security-report-fixtures";

/**
 * Spec part b, Errors: "from 15.0, a security report has a schema version below 14.0.0 or fails
 * validation against its declared schema: the report is not processed ...; from 14.10 a warning
 * is displayed". Limits: the six report types. Each report is checked against the published
 * schema of the version it declares (docs/security-reports.md).
 */
const check = (type: string, report: unknown, at: string) => checkSecurityReport(type, JSON.stringify(report), at);

describe("every scheduled report type validates against the schema of its declared version", () => {
  it("a valid report of each published generation (14.0.x, 14.1.x, 15.0.x) is accepted without warning at 14.10, 15.0 and 16.0", () => {
    for (const type of SCHEDULED_TYPES) {
      for (const declared of ["14.0.0", "14.0.6", "14.1.2", "15.0.0", "15.0.7"]) {
        for (const at of ["14.10", "15.0", "16.0"]) {
          const r = check(type, validReport(type, declared), at);
          expect(r, `${type} ${declared} at ${at}: ${r.errors.join("; ")}${r.warnings.join("; ")}`).toMatchObject({ accepted: true, errors: [], warnings: [], version: declared, findings: 1 });
        }
      }
    }
  });

  it("a 14.x-shaped report declaring 15.0.0 fails the 15.0.0 schema: no scan.analyzer, no finding id", () => {
    for (const type of SCHEDULED_TYPES) {
      const r = check(type, { ...validReport(type, "14.1.0"), version: "15.0.0" }, "15.0");
      expect(r.accepted, type).toBe(false);
      const text = r.errors.join("\n");
      expect(text).toMatch(/\/scan \(schema 15\.0\.0\).*"analyzer"/);
      expect(text).toMatch(/\/vulnerabilities\/0 \(schema 15\.0\.0\).*"id"/);
    }
  });

  it("a 15.x-shaped report declaring 14.0.0 fails the 14.0.0 schema: no cve, category or scanner per finding", () => {
    for (const type of SCHEDULED_TYPES) {
      const r = check(type, { ...validReport(type, "15.0.0"), version: "14.0.0" }, "15.0");
      expect(r.accepted, type).toBe(false);
      for (const field of ["cve", "category", "scanner"]) expect(r.errors.join("\n"), `${type} ${field}`).toMatch(new RegExp(`/vulnerabilities/0 \\(schema 14\\.0\\.0\\).*"${field}"`));
    }
  });

  it("enums that change between versions: confidence is checked by 14.x schemas and no longer exists in 15.x", () => {
    const old = validReport("sast", "14.1.0");
    (old.vulnerabilities as Record<string, unknown>[])[0].confidence = "Certain";
    expect(check("sast", old, "15.0").errors.join()).toContain("confidence");
    const current = validReport("sast", "15.0.0");
    (current.vulnerabilities as Record<string, unknown>[])[0].confidence = "Certain";
    expect(check("sast", current, "15.0").accepted).toBe(true);
  });

  it("15.x length limits: a finding name over 255 characters fails 15.0.0 but not 14.1.0", () => {
    const long = "n".repeat(256);
    const v15 = validReport("sast", "15.0.0");
    (v15.vulnerabilities as Record<string, unknown>[])[0].name = long;
    expect(check("sast", v15, "15.0").errors.join()).toContain("/vulnerabilities/0/name");
    const v14 = validReport("sast", "14.1.0");
    (v14.vulnerabilities as Record<string, unknown>[])[0].name = long;
    expect(check("sast", v14, "15.0").accepted).toBe(true);
  });

  it("scan.analyzer, optional in 14.1.x, is checked there when present; 14.0.x has no such field", () => {
    const bad = { ...validReport("dast", "14.1.0") };
    bad.scan = { ...(bad.scan as object), analyzer: { id: "a" } };
    expect(check("dast", bad, "15.0").errors.join()).toMatch(/\/scan\/analyzer \(schema 14\.1\.0\)/);
    expect(check("dast", { ...bad, version: "14.0.6" }, "15.0").accepted).toBe(true);
  });

  it("a version never published is a problem, checked against the nearest older published schema", () => {
    expect(PUBLISHED_VERSIONS[0]).toBe("14.0.0");
    const r = check("sast", { ...validReport("sast", "15.0.0"), version: "15.0.99" }, "15.0");
    expect(r.accepted).toBe(false);
    expect(r.errors.join()).toContain("schema version 15.0.99 is not a published sast schema version");
    expect(r.errors.join()).toContain("checked against 15.0.7");
    const mid = check("sast", { ...validReport("sast", "14.1.0"), version: "14.5.0" }, "14.10");
    expect(mid.warnings.join()).toContain("checked against 14.1.3");
  });
});

describe("both sides of 15.0 and the 14.10 warning, for every report type the schedule names", () => {
  const failing = (type: (typeof SCHEDULED_TYPES)[number]) => {
    const r = validReport(type, "15.0.0");
    delete (r.vulnerabilities as Record<string, unknown>[])[0].location;
    return r;
  };
  const cases = [
    { name: "schema version below 14.0.0", report: (t: (typeof SCHEDULED_TYPES)[number]) => ({ ...validReport(t, "14.0.0"), version: "13.1.0" }), says: "below the minimum 14.0.0" },
    { name: "fails its declared schema", report: failing, says: '"location"' },
  ];
  for (const c of cases) {
    it(`${c.name}: from 15.0 not processed; at 14.10 accepted with a warning naming the problem; before 14.10 accepted silently`, () => {
      for (const type of SCHEDULED_TYPES) {
        for (const at of ["15.0", "16.0"]) {
          const r = check(type, c.report(type), at);
          expect(r.accepted, `${type} at ${at}`).toBe(false);
          expect(r.errors.join("\n"), `${type} at ${at}`).toContain(c.says);
        }
        const warned = check(type, c.report(type), "14.10");
        expect(warned.accepted, type).toBe(true);
        expect(warned.errors).toEqual([]);
        expect(warned.warnings.join("\n"), type).toContain(c.says);
        expect(warned.deprecatedId).toBe("security-report-min-schema-version");
        const before = check(type, c.report(type), "14.9");
        expect(before, type).toMatchObject({ accepted: true, errors: [], warnings: [], deprecatedId: null });
      }
    });
  }
});
