import type { Schema } from "@cfworker/json-schema";

/**
 * Compact JSON Schemas of the security report types the schedule names (part b, Limits): the
 * structure GitLab's report schemas 14.x/15.x require, without their optional detail. A report is
 * validated against the schema of the type it declares (its scan.type, which must match the
 * Purpose's type).
 */
export const REPORT_TYPES = [
  "container_scanning",
  "coverage_fuzzing",
  "dast",
  "dependency_scanning",
  "sast",
  "secret_detection",
] as const;
export type ReportType = (typeof REPORT_TYPES)[number];

const identifier: Schema = {
  type: "object",
  required: ["type", "name", "value"],
  properties: { type: { type: "string", minLength: 1 }, name: { type: "string", minLength: 1 }, value: { type: "string", minLength: 1 } },
};

const vendor: Schema = { type: "object", required: ["name"], properties: { name: { type: "string", minLength: 1 } } };
const tool: Schema = {
  type: "object",
  required: ["id", "name", "vendor", "version"],
  properties: { id: { type: "string", minLength: 1 }, name: { type: "string" }, vendor, version: { type: "string" } },
};

const LOCATIONS: Record<ReportType, Schema> = {
  container_scanning: { type: "object", required: ["image", "operating_system", "dependency"], properties: { image: { type: "string" }, operating_system: { type: "string" }, dependency: { type: "object" } } },
  coverage_fuzzing: { type: "object", properties: { crash_address: { type: "string" }, crash_type: { type: "string" }, stacktrace_snippet: { type: "string" } } },
  dast: { type: "object", properties: { hostname: { type: "string" }, method: { type: "string" }, path: { type: "string" }, param: { type: "string" } } },
  dependency_scanning: { type: "object", required: ["file", "dependency"], properties: { file: { type: "string", minLength: 1 }, dependency: { type: "object" } } },
  sast: { type: "object", properties: { file: { type: "string" }, start_line: { type: "integer", minimum: 1 }, end_line: { type: "integer", minimum: 1 } } },
  secret_detection: { type: "object", required: ["file", "commit"], properties: { file: { type: "string" }, commit: { type: "object", required: ["sha"] } } },
};

export function reportSchema(type: ReportType): Schema {
  const properties: Record<string, Schema> = {
    version: { type: "string", pattern: "^\\d+\\.\\d+\\.\\d+$" },
    schema: { type: "string" },
    scan: {
      type: "object",
      required: ["analyzer", "scanner", "type", "start_time", "end_time", "status"],
      properties: {
        analyzer: tool,
        scanner: tool,
        type: { const: type },
        start_time: { type: "string", pattern: "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}$" },
        end_time: { type: "string", pattern: "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}$" },
        status: { enum: ["success", "failure"] },
      },
    },
    vulnerabilities: {
      type: "array",
      items: {
        type: "object",
        required: ["id", "identifiers", "location"],
        properties: {
          id: { type: "string", minLength: 1 },
          name: { type: "string", maxLength: 255 },
          description: { type: "string", maxLength: 1048576 },
          severity: { enum: ["Info", "Unknown", "Low", "Medium", "High", "Critical"] },
          identifiers: { type: "array", minItems: 1, items: identifier },
          location: LOCATIONS[type],
        },
      },
    },
    remediations: { type: "array" },
  };
  const required = ["version", "scan", "vulnerabilities"];
  if (type === "dependency_scanning") {
    properties.dependency_files = { type: "array", items: { type: "object", required: ["path", "package_manager", "dependencies"] } };
    required.push("dependency_files");
  }
  return { $schema: "https://json-schema.org/draft/2019-09/schema", type: "object", required, properties };
}
