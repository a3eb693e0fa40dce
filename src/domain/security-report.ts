import { Validator } from "@cfworker/json-schema";
import { catalogueEntry } from "../versioning/catalogue";
import { stateAt } from "../versioning/state";
import { REPORT_TYPES, reportSchema, type ReportType } from "./security-report-schemas";

/**
 * Security report rules of the schedule (part b, Errors and Limits; catalogue entry
 * security-report-min-schema-version): from 15.0 a report whose schema version is below 14.0.0,
 * or that fails validation against its declared schema, is not processed; from 14.10 the same
 * problems are a warning; before 14.10 they are not reported. A report that is not JSON, or whose
 * type is not one of the six, is refused at every version.
 */
const CHANGE_ID = "security-report-min-schema-version";
const MIN_SCHEMA_VERSION = "14.0.0";

export interface ReportCheck {
  accepted: boolean;
  errors: string[];
  warnings: string[];
  version: string | null;
  findings: number;
  /** The catalogue entry when the report relies on its deprecated state (a warning, not a refusal). */
  deprecatedId: string | null;
}

const validators = new Map<ReportType, Validator>();

function isReportType(t: string): t is ReportType {
  return (REPORT_TYPES as readonly string[]).includes(t);
}

function compareSemver(a: string, b: string): number {
  const pa = a.split(".").map(Number);
  const pb = b.split(".").map(Number);
  for (let i = 0; i < 3; i++) if ((pa[i] ?? 0) !== (pb[i] ?? 0)) return (pa[i] ?? 0) - (pb[i] ?? 0);
  return 0;
}

export function checkSecurityReport(type: string, text: string, serviceVersion: string): ReportCheck {
  const refuse = (why: string): ReportCheck => ({ accepted: false, errors: [why], warnings: [], version: null, findings: 0, deprecatedId: null });
  if (!isReportType(type)) return refuse(`unknown security report type "${type}"; one of ${REPORT_TYPES.join(", ")}`);
  let report: unknown;
  try {
    report = JSON.parse(text);
  } catch {
    return refuse("the report is not valid JSON");
  }
  if (typeof report !== "object" || report === null || Array.isArray(report)) return refuse("the report is not a JSON object");
  const r = report as Record<string, unknown>;
  const version = typeof r.version === "string" ? r.version : null;
  const problems: string[] = [];
  if (version === null || !/^\d+\.\d+\.\d+$/.test(version)) {
    problems.push("the report declares no schema version (field version, major.minor.patch)");
  } else if (compareSemver(version, MIN_SCHEMA_VERSION) < 0) {
    problems.push(`schema version ${version} is below the minimum ${MIN_SCHEMA_VERSION}`);
  }
  let validator = validators.get(type);
  if (!validator) {
    validator = new Validator(reportSchema(type), "2019-09", false);
    validators.set(type, validator);
  }
  const result = validator.validate(report);
  if (!result.valid) {
    // The leaf errors say what is wrong; the "properties"/"items" wrappers only repeat them.
    const leaves = result.errors.filter((e) => !["properties", "items", "allOf", "$ref"].includes(e.keyword));
    for (const e of leaves.slice(0, 20)) problems.push(`${e.instanceLocation}: ${e.error}`);
  }
  const findings = Array.isArray(r.vulnerabilities) ? r.vulnerabilities.length : 0;
  const state = stateAt(catalogueEntry(CHANGE_ID), serviceVersion);
  const outcome = { version, findings, deprecatedId: null };
  if (problems.length === 0) return { accepted: true, errors: [], warnings: [], ...outcome };
  if (state === "removed") return { accepted: false, errors: problems, warnings: [], ...outcome };
  if (state === "deprecated") return { accepted: true, errors: [], warnings: problems, ...outcome, deprecatedId: CHANGE_ID };
  return { accepted: true, errors: [], warnings: [], ...outcome };
}
