import type { ReportType } from "../../src/domain/security-report-schemas";

/**
 * Minimal valid security reports of each type the schedule names, shaped as the published schema
 * of the version they declare: 14.x reports carry `cve`, `category` and a scanner per finding;
 * 15.x reports carry `scan.analyzer` and an `id` per finding.
 */
export const SCHEDULED_TYPES: ReportType[] = ["container_scanning", "coverage_fuzzing", "dast", "dependency_scanning", "sast", "secret_detection"];

const LOCATIONS: Record<ReportType, Record<string, unknown>> = {
  container_scanning: { image: "registry.example/app:1", operating_system: "debian:12", dependency: { package: { name: "openssl" }, version: "3.0.1" } },
  coverage_fuzzing: { crash_address: "0x602000000010", crash_type: "Heap-buffer-overflow", stacktrace_snippet: "#0 parse" },
  dast: { hostname: "https://app.example", method: "GET", path: "/login", param: "q" },
  dependency_scanning: { file: "package-lock.json", dependency: { package: { name: "lodash" }, version: "4.17.20" } },
  sast: { file: "app.js", start_line: 3, end_line: 3 },
  secret_detection: { file: "config.yml", start_line: 1, commit: { sha: "0000000" } },
};

const tool = { id: "analyzer", name: "Analyzer", vendor: { name: "GitLab" }, version: "1.0.0" };

export function validReport(type: ReportType, version: string): Record<string, unknown> {
  const fifteen = version.startsWith("15.");
  const scan: Record<string, unknown> = { scanner: tool, type, start_time: "2022-05-01T10:00:00", end_time: "2022-05-01T10:01:00", status: "success" };
  if (fifteen) scan.analyzer = tool;
  if (type === "dast") scan.scanned_resources = [{ method: "GET", url: "https://app.example/login", type: "url" }];
  const identifiers = [{ type: "cwe", name: "CWE-79", value: "79", url: "https://cwe.mitre.org/data/definitions/79.html" }];
  const finding: Record<string, unknown> = fifteen
    ? { id: "f1", name: "Finding", severity: "High", identifiers, location: LOCATIONS[type] }
    : { category: type, cve: "fingerprint-1", name: "Finding", severity: "High", confidence: "High", scanner: { id: "analyzer", name: "Analyzer" }, identifiers, location: LOCATIONS[type] };
  const report: Record<string, unknown> = { version, scan, vulnerabilities: [finding] };
  if (type === "dependency_scanning") report.dependency_files = [{ path: "package-lock.json", package_manager: "npm", dependencies: [{ package: { name: "lodash" }, version: "4.17.20" }] }];
  return report;
}
