import { parseDocument } from "yaml";
import { catalogueEntry } from "../versioning/catalogue";
import { stateAt, type ChangeState } from "../versioning/state";

/**
 * The pipeline rules of the schedule (part b: Errors, Limits, Versioning), applied by version:
 * nothing while a change is only announced, a warning while it is deprecated, and at removal an
 * error where the pipeline stops working (or a warning where the thing is merely ignored).
 * Used by POST /ci/lint, POST /projects/:id/ci/lint and the Plugin service's ci_config uploads.
 * Only the structure these rules need is checked; this is not a full CI schema validator.
 */
export interface LintResult {
  valid: boolean;
  errors: string[];
  warnings: string[];
  /** Catalogue entries in their deprecated state that this pipeline uses (the answer is marked). */
  deprecatedIds: string[];
}

export const MAX_JOB_NAME_LENGTH = 255;
/** Alias expansions allowed per document (yaml's resource-exhaustion guard; real pipelines use a few). */
export const MAX_YAML_ALIAS_COUNT = 100;
const GLOBAL_KEYWORDS = new Set([
  "default",
  "include",
  "stages",
  "types",
  "variables",
  "workflow",
  "image",
  "services",
  "cache",
  "before_script",
  "after_script",
  "pages",
]);
const DEFAULT_STAGES = ["build", "test", "deploy"];
const REMOVED_SECRET_DETECTION_VARS = [
  "SECRET_DETECTION_COMMIT_FROM",
  "SECRET_DETECTION_COMMIT_TO",
  "SECRET_DETECTION_COMMITS",
  "SECRET_DETECTION_COMMITS_FILE",
  "SECRET_DETECTION_ENTROPY_LEVEL",
];
const REMOVED_ANALYZERS = ["bundler-audit", "retire.js"];
const REMOVED_ANALYZER_JOBS = ["bundler-audit-dependency_scanning", "retire-js-dependency_scanning"];

type Map = Record<string, unknown>;
const isMap = (v: unknown): v is Map => typeof v === "object" && v !== null && !Array.isArray(v);

export function lintPipeline(yamlText: string, serviceVersion: string): LintResult {
  const errors: string[] = [];
  const warnings: string[] = [];
  const deprecated = new Set<string>();
  const state = (id: string): ChangeState => stateAt(catalogueEntry(id), serviceVersion);
  /** Reports one use of a scheduled change according to its state at the version. */
  const report = (id: string, deprecatedMessage: string, removed: string, removedIsError: boolean) => {
    const s = state(id);
    if (s === "deprecated") {
      warnings.push(deprecatedMessage);
      deprecated.add(id);
    }
    else if (s === "removed") (removedIsError ? errors : warnings).push(removed);
  };

  if (yamlText.trim() === "") return { valid: false, errors: ["Please provide content of .gitlab-ci.yml"], warnings, deprecatedIds: [...deprecated] };
  const doc = parseDocument(yamlText);
  if (doc.errors.length) {
    return { valid: false, errors: [`Invalid configuration format: ${doc.errors[0].message.split("\n")[0]}`], warnings, deprecatedIds: [...deprecated] };
  }
  let root: unknown;
  try {
    // An alias bomb (aliases of aliases) expands exponentially: refuse it as the lint error it is.
    root = doc.toJS({ maxAliasCount: MAX_YAML_ALIAS_COUNT });
  } catch (e) {
    if (e instanceof ReferenceError) return { valid: false, errors: [`Invalid configuration format: ${e.message}`], warnings, deprecatedIds: [...deprecated] };
    throw e;
  }
  if (!isMap(root)) return { valid: false, errors: ["Invalid configuration format"], warnings, deprecatedIds: [...deprecated] };

  // stages / types (ci-keyword-types)
  let stages = DEFAULT_STAGES;
  if (root.types !== undefined) {
    report(
      "ci-keyword-types",
      "root `types` is deprecated in 9.0 and will be removed in 15.0; use `stages`.",
      "root config contains unknown keys: types (removed in 15.0; use `stages`)",
      true,
    );
    if (state("ci-keyword-types") !== "removed" && Array.isArray(root.types)) stages = root.types.map(String);
  }
  if (root.stages !== undefined) {
    if (!Array.isArray(root.stages)) errors.push("stages config should be an array of strings");
    else stages = root.stages.map(String);
  }
  const allStages = [".pre", ...stages, ".post"];

  checkVariables("root", root.variables);

  const jobs = Object.entries(root).filter(([k]) => !GLOBAL_KEYWORDS.has(k));
  let visibleJobs = 0;
  for (const [name, job] of jobs) {
    if (!isMap(job)) {
      errors.push(`jobs:${name} config should be a hash`);
      continue;
    }
    if (!name.startsWith(".")) visibleJobs += 1;
    if (name.length > MAX_JOB_NAME_LENGTH) {
      report(
        "ci-job-name-length",
        `jobs:${name.slice(0, 40)}… name is longer than ${MAX_JOB_NAME_LENGTH} characters; from 15.0 such a pipeline stops working.`,
        `jobs:${name.slice(0, 40)}… name is too long (maximum is ${MAX_JOB_NAME_LENGTH} characters)`,
        true,
      );
    }
    if (REMOVED_ANALYZER_JOBS.includes(name)) {
      report(
        "ds-excluded-analyzers",
        `jobs:${name} customises a dependency-scanning analyzer that is removed in 15.0; switch it to gemnasium-dependency_scanning.`,
        `jobs:${name} customises a removed dependency-scanning analyzer; use gemnasium-dependency_scanning`,
        true,
      );
    }
    const hidden = name.startsWith(".");
    if (!hidden && job.script === undefined && job.trigger === undefined && job.extends === undefined && job.run === undefined) {
      errors.push(`jobs:${name} config should implement the script:, run:, or trigger: keyword`);
    }
    if (job.type !== undefined) {
      report(
        "ci-keyword-types",
        `jobs:${name} config uses the deprecated keyword \`type\`; use \`stage\`.`,
        `jobs:${name} config contains unknown keys: type (removed in 15.0; use \`stage\`)`,
        true,
      );
    }
    const stage = job.stage ?? (state("ci-keyword-types") !== "removed" ? job.type : undefined);
    if (!hidden && stage !== undefined && !allStages.includes(String(stage))) {
      errors.push(`jobs:${name} chosen stage does not exist; available stages are ${allStages.join(", ")}`);
    }
    const artifacts = job.artifacts;
    if (isMap(artifacts) && isMap(artifacts.reports) && artifacts.reports.cobertura !== undefined) {
      report(
        "ci-cobertura-report",
        `jobs:${name}:artifacts:reports:cobertura is deprecated; use artifacts:reports:coverage_report with coverage_format: cobertura.`,
        `jobs:${name}:artifacts:reports config contains unknown keys: cobertura (use coverage_report)`,
        true,
      );
    }
    checkVariables(`jobs:${name}`, job.variables);
  }
  if (visibleJobs === 0) errors.push("jobs config should contain at least one visible job");

  // CI_BUILD_* anywhere (scripts, variables, rules): removed variables are simply unset.
  const buildVars = [...new Set(yamlText.match(/\bCI_BUILD_[A-Z_]+\b/g) ?? [])];
  for (const v of buildVars) {
    const replacement = v.replace("CI_BUILD_", "CI_JOB_");
    report(
      "ci-build-variables",
      `variable ${v} is deprecated and removed in 15.0; use ${replacement}.`,
      `variable ${v} was removed in 15.0 and is not set; use ${replacement}.`,
      false,
    );
  }

  function checkVariables(where: string, vars: unknown): void {
    if (vars === undefined) return;
    if (!isMap(vars)) {
      errors.push(`${where}:variables config should be a hash of key value pairs`);
      return;
    }
    for (const [key, value] of Object.entries(vars)) {
      if (REMOVED_SECRET_DETECTION_VARS.includes(key)) {
        report(
          "secret-detection-variables",
          `${where}:variables ${key} is deprecated and ignored from 15.0; use SECRET_DETECTION_HISTORIC_SCAN.`,
          `${where}:variables ${key} is ignored by the secret detection analyzer since 15.0; use SECRET_DETECTION_HISTORIC_SCAN.`,
          false,
        );
      }
      if (key === "DS_EXCLUDED_ANALYZERS") {
        const named = String(isMap(value) ? value.value : value)
          .split(",")
          .map((s) => s.trim());
        for (const analyzer of REMOVED_ANALYZERS.filter((a) => named.includes(a))) {
          report(
            "ds-excluded-analyzers",
            `${where}:variables DS_EXCLUDED_ANALYZERS names ${analyzer}, which is removed in 15.0; delete the reference.`,
            `${where}:variables DS_EXCLUDED_ANALYZERS names the removed analyzer ${analyzer}; delete the reference`,
            true,
          );
        }
      }
    }
  }

  return { valid: errors.length === 0, errors, warnings, deprecatedIds: [...deprecated] };
}
