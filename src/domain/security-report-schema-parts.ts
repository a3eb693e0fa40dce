import type { Schema } from "@cfworker/json-schema";

/**
 * The pieces of GitLab's published security-report schemas (security-report-schemas, versions
 * 14.0.0 onwards), written here as data from their definitions. Three generations differ in what
 * they require; the patch releases inside a generation differ only in optional detail fields,
 * which reports may carry freely (every schema allows additional properties).
 *
 * - 14.0.x: `scan` optional; each vulnerability requires `category`, `cve` (the old fingerprint),
 *   `identifiers`, `location` and its own `scanner` {id, name}; `confidence` is an enum; URLs are
 *   `format: uri`.
 * - 14.1.x: as 14.0.x, plus `scan.analyzer`, shaped like `scan.scanner` when present.
 * - 15.0.x: `scan` required and `scan.analyzer` required in it; a vulnerability requires only
 *   `id` (non-empty), `identifiers` and `location`; `category`, `cve`, `message`, `confidence` and
 *   the per-vulnerability `scanner` are gone; `name` at most 255 characters, `description` at most
 *   1 MiB, `solution` at most 7000; URLs must be http(s).
 */
export type Generation = "14.0" | "14.1" | "15.0";

export const REPORT_TYPES = [
  "container_scanning",
  "coverage_fuzzing",
  "dast",
  "dependency_scanning",
  "sast",
  "secret_detection",
] as const;
export type ReportType = (typeof REPORT_TYPES)[number];

const TIME = { type: "string", pattern: "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}$" } satisfies Schema;
const SEVERITY = { type: "string", enum: ["Info", "Unknown", "Low", "Medium", "High", "Critical"] } satisfies Schema;
const CONFIDENCE = { type: "string", enum: ["Ignore", "Unknown", "Experimental", "Low", "Medium", "High", "Confirmed"] } satisfies Schema;
const NON_EMPTY = { type: "string", minLength: 1 } satisfies Schema;

function url(g: Generation): Schema {
  return g === "15.0" ? { type: "string", pattern: "^https?://.+" } : { type: "string", format: "uri" };
}

/** scan.scanner, and from 14.1 scan.analyzer: the tool that ran, with its vendor. */
function tool(g: Generation): Schema {
  return {
    type: "object",
    required: ["id", "name", "version", "vendor"],
    properties: {
      id: NON_EMPTY,
      name: NON_EMPTY,
      url: g === "14.0" ? { type: "string" } : url(g),
      version: NON_EMPTY,
      vendor: { type: "object", required: ["name"], properties: { name: NON_EMPTY } },
    },
  };
}

export function scanSchema(type: ReportType, g: Generation): Schema {
  const required = ["end_time", "scanner", "start_time", "status", "type"];
  const properties: Record<string, Schema> = {
    end_time: TIME,
    start_time: TIME,
    messages: {
      type: "array",
      items: { type: "object", required: ["level", "value"], properties: { level: { type: "string", enum: ["info", "warn", "fatal"] }, value: NON_EMPTY } },
    },
    scanner: tool(g),
    status: { type: "string", enum: ["success", "failure"] },
    type: { type: "string", enum: [type] },
  };
  if (g !== "14.0") properties.analyzer = tool(g);
  if (g === "15.0") required.unshift("analyzer");
  if (type === "dast") {
    // DAST reports list what was requested during the scan.
    properties.scanned_resources = {
      type: "array",
      items: {
        type: "object",
        required: ["method", "url", "type"],
        properties: { method: NON_EMPTY, url: NON_EMPTY, type: { type: "string", enum: ["url"] } },
      },
    };
    required.push("scanned_resources");
  }
  return { type: "object", required, properties };
}

const PACKAGE_DEPENDENCY: Schema = {
  type: "object",
  required: ["package", "version"],
  properties: {
    package: { type: "object", required: ["name"], properties: { name: { type: "string" } } },
    version: { type: "string" },
    iid: { type: "number" },
    direct: { type: "boolean" },
    dependency_path: { type: "array", items: { type: "object", required: ["iid"], properties: { iid: { type: "number" } } } },
  },
};

/** Each report type's `location`: where the finding is. */
export function locationSchema(type: ReportType): Schema {
  switch (type) {
    case "sast":
      return {
        type: "object",
        properties: { file: { type: "string" }, start_line: { type: "number" }, end_line: { type: "number" }, class: { type: "string" }, method: { type: "string" } },
      };
    case "dependency_scanning":
      return { type: "object", required: ["file", "dependency"], properties: { file: NON_EMPTY, dependency: PACKAGE_DEPENDENCY } };
    case "container_scanning":
      return {
        type: "object",
        required: ["dependency", "operating_system", "image"],
        properties: { dependency: PACKAGE_DEPENDENCY, operating_system: NON_EMPTY, image: NON_EMPTY, default_branch_image: { type: "string", maxLength: 255 } },
      };
    case "secret_detection":
      return {
        type: "object",
        required: ["commit"],
        properties: {
          file: { type: "string" },
          start_line: { type: "number" },
          end_line: { type: "number" },
          class: { type: "string" },
          method: { type: "string" },
          commit: {
            type: "object",
            required: ["sha"],
            properties: { author: { type: "string" }, date: { type: "string" }, message: { type: "string" }, sha: NON_EMPTY },
          },
        },
      };
    case "dast":
      return { type: "object", properties: { hostname: { type: "string" }, method: { type: "string" }, param: { type: "string" }, path: { type: "string" } } };
    case "coverage_fuzzing":
      return {
        type: "object",
        properties: { crash_address: { type: "string" }, stacktrace_snippet: { type: "string" }, crash_state: { type: "string" }, crash_type: { type: "string" } },
      };
  }
}

export function vulnerabilitySchema(type: ReportType, g: Generation): Schema {
  const identifier: Schema = {
    type: "object",
    required: ["type", "name", "value"],
    properties: { type: NON_EMPTY, name: NON_EMPTY, url: url(g), value: NON_EMPTY },
  };
  const common: Record<string, Schema> = {
    severity: SEVERITY,
    identifiers: { type: "array", minItems: 1, items: identifier },
    links: { type: "array", items: { type: "object", required: ["url"], properties: { name: { type: "string" }, url: url(g) } } },
    location: locationSchema(type),
  };
  if (g === "15.0") {
    return {
      type: "object",
      required: ["id", "identifiers", "location"],
      properties: {
        ...common,
        id: NON_EMPTY,
        name: { type: "string", maxLength: 255 },
        description: { type: "string", maxLength: 1048576 },
        solution: { type: "string", maxLength: 7000 },
      },
    };
  }
  return {
    type: "object",
    required: ["category", "cve", "identifiers", "location", "scanner"],
    properties: {
      ...common,
      id: { type: "string" },
      category: NON_EMPTY,
      name: { type: "string" },
      message: { type: "string" },
      description: { type: "string" },
      cve: { type: "string" },
      confidence: CONFIDENCE,
      solution: { type: "string" },
      scanner: { type: "object", required: ["id", "name"], properties: { id: NON_EMPTY, name: NON_EMPTY } },
    },
  };
}

export function remediationsSchema(): Schema {
  return {
    type: "array",
    items: {
      type: "object",
      required: ["fixes", "summary", "diff"],
      properties: {
        fixes: { type: "array", items: { type: "object", required: ["id"], properties: { id: NON_EMPTY } } },
        summary: NON_EMPTY,
        diff: NON_EMPTY,
      },
    },
  };
}

/** dependency_files: the manifests a dependency scan read (required for dependency scanning). */
export function dependencyFilesSchema(): Schema {
  return {
    type: "array",
    items: {
      type: "object",
      required: ["path", "package_manager", "dependencies"],
      properties: { path: NON_EMPTY, package_manager: NON_EMPTY, dependencies: { type: "array", items: PACKAGE_DEPENDENCY } },
    },
  };
}
