import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { startService } from "./server";

/**
 * Starts the service the way README says (`npm start`), on a free loopback port and a fresh local
 * state directory, once for all end-to-end tests: the one shared server. Tests read its address
 * with inject("baseURL") and root's password with inject("rootPassword"); each file makes its own
 * users, projects and clients under fresh names (docs/testing.md, "End-to-end files").
 */
declare module "vitest" {
  export interface ProvidedContext {
    baseURL: string;
    rootPassword: string;
  }
}

export default async function setup(project: TestProject) {
  const persist = mkdtempSync(path.join(tmpdir(), "edge-auth-e2e-"));
  const rootPassword = "e2e-Root-Password-42";
  // End-to-end files run side by side (vitest.config.ts, docs/testing.md), all from 127.0.0.1: the
  // failed-authentication throttle of this shared server would add up the wrong passwords of
  // several files within one window and ban every file for 15 minutes. The throttles are tested
  // on servers of their own (configuration.test.ts, client-address.test.ts).
  // Every change that takes access away (a refresh's rotation, a sign-out, a revocation, a block)
  // answers only once the validation cache's bound has passed since the token was last vouched
  // for: at the shipped 5 s, the browser and client files spent most of their time waiting on it.
  // Here it is 1 s, the cache still on and the waits still real; the bound itself is tested at its
  // shipped value in test/credentials/validation-cache.test.ts and configured in
  // configuration.test.ts.
  const vars = { THROTTLE_FAILED_AUTH_LIMIT: "1000", THROTTLE_FAILED_BEARER_LIMIT: "10000", VALIDATION_CACHE_SECONDS: "1" };
  const server = await startService({ persistDir: persist, rootPassword, vars });
  project.provide("baseURL", server.baseURL);
  project.provide("rootPassword", rootPassword);
  return async () => {
    await server.stop();
    rmSync(persist, { recursive: true, force: true });
  };
}
