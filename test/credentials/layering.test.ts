import { describe, expect, it } from "vitest";

/**
 * DESIGN, Credentials: the layer sits below every route family. No module under src/credentials
 * may import a route family (api, graphql, plugin, git, web, oauth, or registries when they land),
 * so each family can ask the layer and none can be reached from it.
 */
const sources = import.meta.glob("../../src/credentials/**/*.{ts,tsx}", { query: "?raw", import: "default", eager: true }) as Record<string, string>;

const ROUTE_FAMILIES = ["api", "graphql", "plugin", "git", "web", "oauth", "registry", "bench"];

function importsOf(source: string): string[] {
  const specs: string[] = [];
  for (const m of source.matchAll(/(?:import|export)\s[^;]*?from\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g)) specs.push(m[1] ?? m[2]);
  return specs;
}

/** The top-level directory of src/ an import of a file in src/credentials/<sub>/ lands in. */
function srcTopLevel(file: string, spec: string): string | null {
  if (!spec.startsWith(".")) return null;
  const dir = file.replace(/^\.\.\/\.\.\/src\//, "").split("/").slice(0, -1);
  const parts = [...dir];
  for (const seg of spec.split("/")) {
    if (seg === "..") parts.pop();
    else if (seg !== ".") parts.push(seg);
  }
  return parts[0] ?? null;
}

describe("credentials layer (DESIGN, Credentials: one layer below every route family)", () => {
  it("finds the layer's modules", () => {
    expect(Object.keys(sources).length).toBeGreaterThanOrEqual(8);
  });

  it("no module under src/credentials imports a route family", () => {
    const offenders: string[] = [];
    for (const [file, source] of Object.entries(sources)) {
      for (const spec of importsOf(source)) {
        const top = srcTopLevel(file, spec);
        if (top && ROUTE_FAMILIES.includes(top)) offenders.push(`${file} imports ${spec}`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it("the import check itself catches an upward import", () => {
    const spec = importsOf('import { x } from "../oauth/errors";')[0];
    expect(srcTopLevel("../../src/credentials/kinds.ts", spec)).toBe("oauth");
    expect(srcTopLevel("../../src/credentials/kinds.ts", "./oauth-family")).toBe("credentials");
  });
});
