/**
 * A small import walker over src/ (docs/architecture.md, "Import rules"): which module imports
 * which, at run time (`import type` is erased by the compiler and left out) and in all. Sources
 * come in as text through Vite's glob, so the walk runs inside the workers pool like every test.
 */
const sources = import.meta.glob("../../src/**/*.{ts,tsx}", { query: "?raw", import: "default", eager: true }) as Record<string, string>;

/** Files as paths below src/ ("oauth/errors.ts"). */
export const FILES: Record<string, string> = Object.fromEntries(Object.entries(sources).map(([k, v]) => [k.replace(/^\.\.\/\.\.\/src\//, ""), v]));

export interface ImportEdge {
  from: string;
  to: string;
  typeOnly: boolean;
}

const IMPORT = /^\s*(?:import|export)\s+(type\s+)?(?:[^;]*?\sfrom\s+)?["']([^"']+)["']/gm;
const DYNAMIC = /import\(\s*["']([^"']+)["']\s*\)/g;

function join(fromFile: string, spec: string): string {
  const parts = fromFile.split("/").slice(0, -1);
  for (const seg of spec.split("/")) {
    if (seg === "..") parts.pop();
    else if (seg !== ".") parts.push(seg);
  }
  return parts.join("/");
}

/** The file a relative import lands on, or null (a package, or outside src/). */
export function resolveImport(fromFile: string, spec: string, files: Record<string, unknown> = FILES): string | null {
  if (!spec.startsWith(".")) return null;
  const base = join(fromFile, spec);
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, `${base}/index.ts`, `${base}/index.tsx`]) if (candidate in files) return candidate;
  return null;
}

export function importsOf(file: string, source: string, files: Record<string, unknown> = FILES): ImportEdge[] {
  const edges: ImportEdge[] = [];
  for (const m of source.matchAll(IMPORT)) {
    const to = resolveImport(file, m[2], files);
    // `import { type A, type B }` is erased too.
    const typeOnly = Boolean(m[1]) || /^\s*import\s*\{(\s*type\s+[^,}]+,?)+\s*\}\s*from/.test(m[0]);
    if (to) edges.push({ from: file, to, typeOnly });
  }
  for (const m of source.matchAll(DYNAMIC)) {
    const to = resolveImport(file, m[1], files);
    if (to) edges.push({ from: file, to, typeOnly: false });
  }
  return edges;
}

export function allEdges(files: Record<string, string> = FILES): ImportEdge[] {
  return Object.entries(files).flatMap(([file, source]) => importsOf(file, source, files));
}

/** The cycles of a graph: its strongly connected components of more than one module (Tarjan). */
export function cycles(edges: ImportEdge[]): string[][] {
  const next = new Map<string, string[]>();
  for (const e of edges) next.set(e.from, [...(next.get(e.from) ?? []), e.to]);
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const v of next.keys()) if (!index.has(v)) visit(v);
  return found;
}
