/**
 * The Worker's main module, imported once per runtime instead of once per invocation.
 *
 * In the workers pool every call of the Worker's default export (`exports.default.fetch`, what
 * test/helpers/fixtures.ts `call()` uses) and every call into a Durable Object goes through
 * @cloudflare/vitest-plugin's wrappers, which import the main module (src/index.ts) again through
 * Vite's module runner. For a module it already evaluated, the runner still asks vitest's Node
 * process whether the module changed (`resolveId` and `fetchModule`, two round trips over the
 * pool's socket), a check made for watch mode. A request that touched two objects paid for three
 * imports: `GET /-/health` took 2.1-2.3 ms here and 0.55 ms without them, `GET /api/v4/user` with a
 * PAT 3.9-5.4 ms and 1.3 ms (docs/testing.md, "Why it is fast").
 *
 * So the main module's exports are remembered, and handed back only while the runner's own record
 * still holds them, evaluated: whenever vitest invalidates the module (a file changed under
 * `vitest` watch), the record changes and the next call imports it again the usual way. Every
 * other import (test files, setup files) is left alone. Files share a runtime (isolate: false) and
 * this setup file runs before each of them, so the import is wrapped once.
 */
import { poolModuleRunner, workerMainPath } from "../helpers/pool-internals";

const REMEMBERS_MAIN = Symbol.for("edge-auth.test.remembersMainModule");
const runner = poolModuleRunner() as ReturnType<typeof poolModuleRunner> & { [REMEMBERS_MAIN]?: true };

if (!runner[REMEMBERS_MAIN]) {
  runner[REMEMBERS_MAIN] = true;
  const mainPath = workerMainPath();
  const importEveryTime = runner.import.bind(runner);
  let remembered: unknown;
  runner.import = async (url: string) => {
    if (url !== mainPath) return importEveryTime(url);
    const record = runner.evaluatedModules.getModuleById(url);
    if (remembered !== undefined && record?.evaluated && record.exports === remembered) return remembered;
    remembered = await importEveryTime(url);
    return remembered;
  };
}
