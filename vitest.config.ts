import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";
import { startGitOriginProcess } from "./scripts/git-origin.mjs";
import { buildSync } from "esbuild";
import { suiteSequencer } from "./test/setup/sequencer.ts";
import { KNOWN_SLOW, OWN_SERVER } from "./test/setup/suite-order.ts";
import { PREBUNDLED } from "./test/setup/prebundled.ts";
import "./test/setup/uncompressed-pool-socket.mjs";
import "./test/setup/scratch-on-tmpfs.mjs";

// An external plugin for the Plugin gateway tests (test/plugin/echo-plugin.ts), bundled into an auxiliary worker.
const echoPlugin = buildSync({ entryPoints: ["test/plugin/echo-plugin.ts"], bundle: true, format: "esm", platform: "browser", write: false }).outputFiles[0].text;

/**
 * Test files that need an instance no other workers file has written to: the integrity check reads
 * every row and object of the instance (a clean one must report nothing, and the other files leave
 * deliberate disagreements behind), and the Ghost User test needs an instance where no deletion
 * has created the Ghost User yet. They run in a runtime of their own (project `workers-isolated`),
 * which they share with each other (isolate: false there too: about 15 s of CPU a runtime saved);
 * each passes after the other, in either order. The isolation works both ways: the Ghost User test
 * leaves a person named ghost and a Ghost User named ghost1, which user-deletion.test.ts must not
 * find (tried: run first in a workers lane instead, it failed that file).
 *
 * Every other workers file shares one runtime per lane (isolate: false), which saves starting a
 * runtime (workerd and the Worker's module graph) for each file. Those files run one after the
 * other in their lane, create their own users, projects and clients under fresh names, and do not
 * depend on an empty database: a file that asserts on a whole table reads its expectation from D1
 * at the moment it asks (test/scale/totals.test.ts) or lists only its own rows
 * (test/scale/keyset-pagination.test.ts) (docs/testing.md).
 */
const stateSensitiveFiles = ["test/setup-tests/integrity.test.ts", "test/services/user-deletion-last-admin.test.ts"];

/** The one git origin of the run: the pool asks for the options of each project and file. */
let sharedGitOrigin: ReturnType<typeof startGitOriginProcess> | undefined;

/** A project running in workerd with the real D1, Durable Object and R2 bindings of wrangler.toml. */
function workersProject(name: string, files: { isolate: boolean; include?: string[]; exclude?: string[] }) {
  return {
    plugins: [
      cloudflareTest(async () => {
        // The git gateway's tests reach a real origin: `git http-backend` on loopback, temporary
        // repositories, requests signed with this run's secret; a program of its own, so that git
        // is not forked from this large process (scripts/git-origin.mjs, startGitOriginProcess).
        const gitOrigin = await (sharedGitOrigin ??= startGitOriginProcess());
        return {
          wrangler: { configPath: "./wrangler.toml" },
          miniflare: {
            bindings: {
              TEST_MIGRATIONS: await readD1Migrations("./drizzle"),
              SECRET_KEY_BASE: "test-secret-key-base-for-vitest-only",
              // The test pool is local development: a first start without ROOT_PASSWORD is allowed.
              LOCAL_DEV: "true",
              // The validation cache is off here: many tests revoke or block through the objects
              // directly and then expect a refusal. test/credentials/validation-cache.test.ts runs
              // with the cache on (its default) and proves revocation still holds.
              VALIDATION_CACHE_SECONDS: "0",
              GIT_ORIGIN: gitOrigin.url,
              GIT_ORIGIN_SECRET: gitOrigin.secret,
            },
            serviceBindings: { ECHO_PLUGIN: "echo-plugin" },
            workers: [{ name: "echo-plugin", modules: true, script: echoPlugin, compatibilityDate: "2026-11-01" }],
          },
        };
      }),
    ],
    test: {
      name,
      isolate: files.isolate,
      include: files.include ?? ["test/**/*.test.ts", "test/**/*.test.tsx"],
      exclude: ["test/e2e/**", "node_modules/**", ...(files.exclude ?? [])],
      setupFiles: ["./test/setup/remembered-main-module.ts", "./test/setup/apply-migrations.ts", "./test/setup/drop-request-lines.ts"],
      testTimeout: 30_000,
      // The packages as one module each instead of file by file: half of a runtime's start
      // (test/setup/prebundled.ts). Vitest leaves JSX runtimes out (hono/jsx/jsx-dev-runtime stays
      // file by file); it keeps no state the pre-bundled hono/html shares.
      deps: { optimizer: { ssr: { enabled: true, include: PREBUNDLED } } },
    },
  };
}

/**
 * How many test files run at once, across all three projects (docs/testing.md). Vitest's default
 * on 2 cores is one (cores - 1), and a project with `fileParallelism: false` is moved to a group
 * of its own that starts only after every other file has finished: the suite then ran one file at
 * a time, end to end. Three lanes on 2 cores keep both cores busy: a workers file is CPU in its
 * own workerd, an end-to-end file mostly waits on the server it drives (or on a browser, git,
 * python-gitlab), so one lane's waiting is another lane's computing. `--maxWorkers` overrides it.
 */
const LANES = 3;

/**
 * Three projects: `workers` and `workers-isolated` run in workerd with the real D1, Durable Object
 * and R2 bindings of wrangler.toml; `e2e` runs in Node against a server started the way README says.
 * All three are one scheduling group (same `maxWorkers`, default `sequence.groupOrder`), so
 * end-to-end files run beside the workers files instead of after them.
 */
export default defineConfig({
  test: {
    maxWorkers: LANES,
    // Which file a freed lane takes next: end-to-end first, long before short (test/setup/sequencer.ts).
    sequence: { sequencer: suiteSequencer({ knownSlow: KNOWN_SLOW, ownServer: OWN_SERVER }) },
    reporters: ["default", "./test/setup/summary-reporter.ts"],
    projects: [
      workersProject("workers", { isolate: false, exclude: stateSensitiveFiles }),
      workersProject("workers-isolated", { isolate: false, include: stateSensitiveFiles }),
      {
        test: {
          name: "e2e",
          include: ["test/e2e/**/*.test.ts"],
          environment: "node",
          // The files of a lane run one after the other in one Node process, which loads vitest,
          // playwright-core and the clients once instead of once per file: about 1.2 s of CPU a
          // file (the 18 browser files: 33.7 s of vitest's Node CPU isolated, 12.7 s not). The
          // files share no state but the server's: each makes its own users and clients, and
          // none mocks, stubs a global or changes process.env (docs/testing.md, "Adding a test").
          isolate: false,
          globalSetup: ["./test/e2e/global-setup.ts"],
          // Uint8Array.prototype.toBase64 where Node lacks it (test/e2e/native-base64.ts).
          setupFiles: ["./test/e2e/native-base64.ts"],
          // Bounds, not expected times: a crash file boots npm start twice, and beside two other
          // lanes on a loaded 2-core machine one boot has taken over 100 s.
          testTimeout: 300_000,
          hookTimeout: 300_000,
        },
      },
    ],
  },
});
