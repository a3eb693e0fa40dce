/**
 * What the workers pool's runtime holds of vitest and @cloudflare/vitest-plugin, typed as far as
 * this project reads it (test/setup/remembered-main-module.ts and its test).
 */
export interface ModuleRecord {
  id: string;
  evaluated?: boolean;
  exports?: unknown;
}

export interface PoolModuleRunner {
  import(url: string): Promise<unknown>;
  /** Vite's transport: `fetchModule` asks vitest's Node process for a module. */
  transport: { invoke(name: string, data: unknown[]): Promise<unknown> };
  evaluatedModules: { getModuleById(id: string): ModuleRecord | undefined; getModuleByUrl(url: string): ModuleRecord | undefined };
}

/** Vite's module runner of this runtime. */
export function poolModuleRunner(): PoolModuleRunner {
  return (globalThis as unknown as { __vitest_mocker__: { moduleRunner: PoolModuleRunner } }).__vitest_mocker__.moduleRunner;
}

/** The path the plugin imports as the Worker: wrangler.toml's `main`, resolved by the pool. */
export function workerMainPath(): string {
  const options = (globalThis as unknown as { __vitest_worker__: { providedContext: { cloudflarePoolOptions: string } } }).__vitest_worker__
    .providedContext.cloudflarePoolOptions;
  return JSON.parse(options).main;
}
