/**
 * The lists test/setup/sequencer.ts orders the suite by (docs/testing.md). A module of its own,
 * without imports, so that test/architecture/suite-order.test.ts can check them in workerd.
 */

/** Files known to take longest (the summary reporter's list), for a clone without vitest's cache. */
export const KNOWN_SLOW = [
  // End-to-end files, longest first: restarts boots npm start three times (kill -9, stop).
  "test/e2e/restarts.test.ts",
  "test/e2e/local-migrations.test.ts",
  "test/e2e/configuration.test.ts",
  "test/e2e/git-origin.test.ts",
  "test/e2e/plugin-upload.test.ts",
  "test/e2e/client-address.test.ts",
  "test/e2e/pages-layout.test.ts",
  "test/e2e/docs-recipes.test.ts",
  "test/e2e/pages-two-factor.test.ts",
  "test/e2e/pages-applications.test.ts",
  // Workers files, longest first (seconds in a full run, vitest's remembered durations).
  "test/services/access-ends-when-answered.test.ts",
  "test/services/fan-out-at-scale.test.ts",
  "test/hardening/sweep.test.ts",
  "test/credentials/validation-cache.test.ts",
  "test/hardening/control-characters.test.ts",
  "test/web/sign-out-everywhere.test.ts",
  "test/services/access-parity.test.ts",
  "test/services/changes-in-slices.test.ts",
  "test/oauth/revoke.test.ts",
  "test/git/origin.test.ts",
];

/**
 * End-to-end files that start an `npm start` of their own (test/e2e/server.ts startService, or a
 * documented recipe): docs/testing.md says when a file may. Only an ordering hint: a file missing
 * here still runs, it is just not spread.
 */
export const OWN_SERVER = new Set([
  "test/e2e/configuration.test.ts",
  "test/e2e/restarts.test.ts",
  "test/e2e/client-address.test.ts",
  "test/e2e/docs-recipes.test.ts",
  "test/e2e/git-origin.test.ts",
]);
