import type { Schema } from "@cfworker/json-schema";
import {
  dependencyFilesSchema,
  type Generation,
  remediationsSchema,
  REPORT_TYPES,
  type ReportType,
  scanSchema,
  vulnerabilitySchema,
} from "./security-report-schema-parts";

export { REPORT_TYPES, type ReportType };

/**
 * The published security-report schema versions from 14.0.0 on (the schedule's minimum), each
 * with the generation of definitions it has (security-report-schema-parts.ts). A report is
 * validated against the schema of the version it declares in its `version` field.
 */
const PUBLISHED: Record<Generation, string[]> = {
  "14.0": ["14.0.0", "14.0.1", "14.0.2", "14.0.3", "14.0.4", "14.0.5", "14.0.6"],
  "14.1": ["14.1.0", "14.1.1", "14.1.2", "14.1.3"],
  "15.0": ["15.0.0", "15.0.1", "15.0.2", "15.0.3", "15.0.4", "15.0.5", "15.0.6", "15.0.7"],
};

export const PUBLISHED_VERSIONS: readonly string[] = Object.values(PUBLISHED).flat();

export function compareSemver(a: string, b: string): number {
  const pa = a.split(".").map(Number);
  const pb = b.split(".").map(Number);
  for (let i = 0; i < 3; i++) if ((pa[i] ?? 0) !== (pb[i] ?? 0)) return (pa[i] ?? 0) - (pb[i] ?? 0);
  return 0;
}

export interface SchemaChoice {
  /** The published version whose schema the report is checked against. */
  version: string;
  generation: Generation;
  /** True when the declared version was published; false when the nearest older one stands in. */
  published: boolean;
}

/**
 * The schema version a declared version is validated against: itself when published; otherwise
 * the newest published version not above it (a report declaring 14.5.0 is checked with 14.1.3's
 * definitions, one declaring 16.1.0 with 15.0.7's), so an unpublished version is reported and
 * still gets the strictest check it could mean. Versions below 14.0.0 stand in with 14.0.0.
 */
export function chooseSchema(declared: string): SchemaChoice {
  for (const [generation, versions] of Object.entries(PUBLISHED) as [Generation, string[]][]) {
    if (versions.includes(declared)) return { version: declared, generation, published: true };
  }
  let best: SchemaChoice = { version: "14.0.0", generation: "14.0", published: false };
  for (const [generation, versions] of Object.entries(PUBLISHED) as [Generation, string[]][]) {
    for (const v of versions) if (compareSemver(v, declared) <= 0) best = { version: v, generation, published: false };
  }
  return best;
}

/** The JSON Schema of one report type at one generation of the published schemas. */
export function reportSchema(type: ReportType, generation: Generation): Schema {
  const required = ["version", "vulnerabilities"];
  if (generation === "15.0") required.unshift("scan");
  const properties: Record<string, Schema> = {
    scan: scanSchema(type, generation),
    schema: generation === "15.0" ? { type: "string", pattern: "^https?://.+" } : { type: "string", format: "uri" },
    version: { type: "string", pattern: "^[0-9]+\\.[0-9]+\\.[0-9]+$" },
    vulnerabilities: { type: "array", items: vulnerabilitySchema(type, generation) },
    remediations: remediationsSchema(),
  };
  if (type === "dependency_scanning") {
    properties.dependency_files = dependencyFilesSchema();
    required.unshift("dependency_files");
  }
  return { $schema: "http://json-schema.org/draft-07/schema#", type: "object", required, properties };
}
