import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * The order in which test files enter the lanes (vitest.config.ts, docs/testing.md). Vitest hands
 * the next file to whichever lane frees first, in this order, so the order decides how the run
 * ends: long files first and short ones last, so that the lanes finish together.
 *
 * - End-to-end files first: they are long and mostly wait, and they overlap the workers files
 *   that follow them in the other lanes.
 * - Among them, files that start a server of their own (a wrangler start is seconds of CPU) are
 *   spread between files that use the shared server, so that the lanes do not all start servers
 *   at once.
 * - Then the workers files, one block per project: a lane keeps its workerd runtime (and its
 *   loaded module graph) only while the next file is of the same project. `workers-isolated`
 *   (two short files in a runtime of their own) before `workers`: its runtime start is a chunk of
 *   seconds, which belongs in the middle of the run, not in its tail where lanes should be
 *   finishing short files together.
 * - Within a block, the longest first: the durations of the last run when vitest remembers them
 *   (node_modules/.vite), otherwise the files known to be slow (test/setup/suite-order.ts), then
 *   the largest.
 */

const PROJECT_ORDER = ["e2e", "workers-isolated", "workers"];

/**
 * The sequencer for the lists of test/setup/suite-order.ts (passed in by vitest.config.ts, which
 * may import with a .ts extension where this type-checked file may not).
 */
export function suiteSequencer(lists: { knownSlow: readonly string[]; ownServer: ReadonlySet<string> }): typeof BaseSequencer {
  const { knownSlow, ownServer } = lists;
  return class SuiteSequencer extends BaseSequencer {
    async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
      const name = (spec: TestSpecification) => fromRoot(this.ctx.config.root, spec.moduleId);
      const cost = (spec: TestSpecification): number => {
        const key = `${spec.project.name}:${name(spec)}`;
        const remembered = this.ctx.cache.getFileTestResults(key)?.duration;
        if (remembered !== undefined) return remembered;
        const slow = knownSlow.indexOf(name(spec));
        // Known slow files rank by their place in the list, above every file of unknown duration.
        if (slow !== -1) return 1e9 - slow;
        return this.ctx.cache.getFileStats(key)?.size ?? 0;
      };
      const byCost = (list: TestSpecification[]) => list.map((spec) => ({ spec, cost: cost(spec) })).sort((a, b) => b.cost - a.cost).map(({ spec }) => spec);

      const ordered: TestSpecification[] = [];
      const projects = [...new Set(files.map((f) => f.project.name))].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
      for (const project of projects) {
        const block = byCost(files.filter((f) => f.project.name === project));
        ordered.push(...(project === "e2e" ? spreadOwnServers(block, (s) => ownServer.has(name(s))) : block));
      }
      return ordered;
    }
  };
}

const rank = (project: string) => (PROJECT_ORDER.includes(project) ? PROJECT_ORDER.indexOf(project) : PROJECT_ORDER.length);

/** Interleaves the files that start their own server with the others, two of those between two of these. */
function spreadOwnServers(block: TestSpecification[], startsOwnServer: (spec: TestSpecification) => boolean): TestSpecification[] {
  const own = block.filter(startsOwnServer);
  const shared = block.filter((s) => !own.includes(s));
  const out: TestSpecification[] = [];
  while (own.length || shared.length) {
    if (own.length) out.push(own.shift()!);
    out.push(...shared.splice(0, 2));
  }
  return out;
}

/** A file's path from the repository root, as vitest's cache keys and the lists above name it. */
const fromRoot = (root: string, file: string) => (file.startsWith(`${root}/`) ? file.slice(root.length + 1) : file);
