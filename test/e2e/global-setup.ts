import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { startService } from "./server";

/**
 * Starts the service the way README says (`npm start`), on a free loopback port and a fresh local
 * state directory, once for all end-to-end tests. Tests read its address with inject("baseURL").
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
  const server = await startService({ persistDir: persist, rootPassword });
  project.provide("baseURL", server.baseURL);
  project.provide("rootPassword", rootPassword);
  return async () => {
    await server.stop();
    rmSync(persist, { recursive: true, force: true });
  };
}
