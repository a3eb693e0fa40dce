/**
 * The Worker's main module, imported once per runtime instead of once per invocation.
 *
 * In the workers pool every call of the Worker's default export (`exports.default.fetch`, what
 * test/helpers/fixtures.ts `call()` uses) and every call into a Durable Object goes through
 * @cloudflare/vitest-plugin's wrappers, which import the main module (src/index.ts) again through
 * Vite's module runner. For a module it already evaluated, the runner still asks vitest's Node
 * process whether the module changed (a `fetchModule` round trip over the pool's socket), a check
 * made for watch mode. A request that touches two objects paid three of them: `GET /-/health`
 * took 2.1-2.3 ms here and 0.55 ms without them, `GET /api/v4/user` with a PAT 3.9-5.4 ms and
 * 1.3 ms (docs/testing.md, "Why it is fast").
 *
 * So the main module's exports are remembered, and handed back only while the runner's own record
 * still holds them, evaluated: whenever vitest invalidates the module (between files, or a file
 * changed under `vitest` watch), the record changes and the next call imports it again the usual
 * way. Every other import (test files, setup files) is left alone. Files share a runtime
 * (isolate: false) and this setup file runs before each of them, so the import is wrapped once.
 */
interface ModuleRecord {
  evaluated?: boolean;
  exports?: unknown;
}
interface ModuleRunner {
  import(url: string): Promise<unknown>;
  evaluatedModules: { getModuleById(id: string): ModuleRecord | undefined };
}

const REMEMBERS_MAIN = Symbol.for("edge-auth.test.remembersMainModule");
const runner = (globalThis as unknown as { __vitest_mocker__: { moduleRunner: ModuleRunner & { [REMEMBERS_MAIN]?: true } } })
  .__vitest_mocker__.moduleRunner;

if (!runner[REMEMBERS_MAIN]) {
  runner[REMEMBERS_MAIN] = true;
  // The path the plugin imports: wrangler.toml's `main`, resolved by the pool.
  const poolOptions = (globalThis as unknown as { __vitest_worker__: { providedContext: { cloudflarePoolOptions: string } } })
    .__vitest_worker__.providedContext.cloudflarePoolOptions;
  const mainPath: string = JSON.parse(poolOptions).main;
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
