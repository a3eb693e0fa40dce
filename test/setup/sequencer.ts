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
 *   loaded module graph) only while the next file is of the same project.
 * - Within a block, the longest first: the durations of the last run when vitest remembers them
 *   (node_modules/.vite), otherwise the files known to be slow, then the largest.
 */

/** Files known to take longest (the summary reporter's list), for a clone without vitest's cache. */
const KNOWN_SLOW = [
  "test/e2e/configuration.test.ts",
  "test/e2e/crash-upload.test.ts",
  "test/e2e/crash-block.test.ts",
  "test/e2e/durability.test.ts",
  "test/e2e/pages-layout.test.ts",
  "test/e2e/client-address.test.ts",
  "test/e2e/docs-recipes.test.ts",
  "test/e2e/git-origin.test.ts",
  "test/hardening/sweep.test.ts",
  "test/credentials/validation-cache.test.ts",
  "test/oauth/storage-scan.test.ts",
  "test/hardening/control-characters.test.ts",
  "test/services/fan-out-at-scale.test.ts",
];

const PROJECT_ORDER = ["e2e", "workers", "workers-isolated"];

/**
 * End-to-end files that start an `npm start` of their own (test/e2e/server.ts startService, or a
 * documented recipe): docs/testing.md says when a file may. Only an ordering hint: a file missing
 * here still runs, it is just not spread.
 */
const OWN_SERVER = new Set([
  "test/e2e/configuration.test.ts",
  "test/e2e/crash-upload.test.ts",
  "test/e2e/crash-block.test.ts",
  "test/e2e/durability.test.ts",
  "test/e2e/client-address.test.ts",
  "test/e2e/docs-recipes.test.ts",
  "test/e2e/git-origin.test.ts",
]);

export default class SuiteSequencer extends BaseSequencer {
  async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const name = (spec: TestSpecification) => fromRoot(this.ctx.config.root, spec.moduleId);
    const cost = (spec: TestSpecification): number => {
      const key = `${spec.project.name}:${name(spec)}`;
      const remembered = this.ctx.cache.getFileTestResults(key)?.duration;
      if (remembered !== undefined) return remembered;
      const slow = KNOWN_SLOW.indexOf(name(spec));
      // Known slow files rank by their place in the list, above every file of unknown duration.
      if (slow !== -1) return 1e9 - slow;
      return this.ctx.cache.getFileStats(key)?.size ?? 0;
    };
    const byCost = (list: TestSpecification[]) => list.map((spec) => ({ spec, cost: cost(spec) })).sort((a, b) => b.cost - a.cost).map(({ spec }) => spec);

    const ordered: TestSpecification[] = [];
    const projects = [...new Set(files.map((f) => f.project.name))].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
    for (const project of projects) {
      const block = byCost(files.filter((f) => f.project.name === project));
      ordered.push(...(project === "e2e" ? spreadOwnServers(block, (s) => OWN_SERVER.has(name(s))) : block));
    }
    return ordered;
  }
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
