import { Validator } from "@cfworker/json-schema";
import { catalogueEntry } from "../versioning/catalogue";
import { stateAt } from "../versioning/state";
import type { Generation } from "./security-report-schema-parts";
import { chooseSchema, compareSemver, PUBLISHED_VERSIONS, REPORT_TYPES, reportSchema, type ReportType } from "./security-report-schemas";

/**
 * Security report rules of the schedule (part b, Errors and Limits; catalogue entry
 * security-report-min-schema-version): from 15.0 a report whose schema version is below 14.0.0,
 * or that fails validation against its declared schema, is not processed; from 14.10 the same
 * problems are a warning; before 14.10 they are not reported. A report that is not JSON, or whose
 * type is not one of the six, is refused at every version.
 *
 * "Its declared schema" is the published schema of the version the report names in `version`
 * (security-report-schemas.ts): a 14.x report must carry the 14.x fields (`cve`, `category`, a
 * scanner per finding), a 15.x report the 15.x ones (`scan.analyzer`, an `id` per finding). A
 * version that was never published is itself a problem, and the report is checked against the
 * nearest older published schema.
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

const validators = new Map<string, Validator>();

function validatorFor(type: ReportType, generation: Generation): Validator {
  const key = `${type}@${generation}`;
  let v = validators.get(key);
  if (!v) {
    v = new Validator(reportSchema(type, generation), "7", false);
    validators.set(key, v);
  }
  return v;
}

function isReportType(t: string): t is ReportType {
  return (REPORT_TYPES as readonly string[]).includes(t);
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
  let checkedAgainst = chooseSchema("14.0.0");
  if (version === null || !/^\d+\.\d+\.\d+$/.test(version)) {
    problems.push("the report declares no schema version (field version, major.minor.patch)");
  } else if (compareSemver(version, MIN_SCHEMA_VERSION) < 0) {
    problems.push(`schema version ${version} is below the minimum ${MIN_SCHEMA_VERSION}`);
  } else {
    checkedAgainst = chooseSchema(version);
    if (!checkedAgainst.published) {
      problems.push(
        `schema version ${version} is not a published ${type} schema version (published from ${PUBLISHED_VERSIONS[0]} to ${PUBLISHED_VERSIONS.at(-1)}); checked against ${checkedAgainst.version}`,
      );
    }
  }
  const result = validatorFor(type, checkedAgainst.generation).validate(report);
  if (!result.valid) {
    // The leaf errors say what is wrong; the "properties"/"items" wrappers only repeat them.
    const leaves = result.errors.filter((e) => !["properties", "items", "allOf", "$ref"].includes(e.keyword));
    for (const e of leaves.slice(0, 20)) problems.push(`${e.instanceLocation} (schema ${checkedAgainst.version}): ${e.error}`);
  }
  const findings = Array.isArray(r.vulnerabilities) ? r.vulnerabilities.length : 0;
  const state = stateAt(catalogueEntry(CHANGE_ID), serviceVersion);
  const outcome = { version, findings, deprecatedId: null };
  if (problems.length === 0) return { accepted: true, errors: [], warnings: [], ...outcome };
  if (state === "removed") return { accepted: false, errors: problems, warnings: [], ...outcome };
  if (state === "deprecated") return { accepted: true, errors: [], warnings: problems, ...outcome, deprecatedId: CHANGE_ID };
  return { accepted: true, errors: [], warnings: [], ...outcome };
}
