import { describe, expect, it } from "vitest";
import { startRefused } from "./server";

/**
 * README, Configuration: `npm start` checks every variable before anything starts. These starts
 * are refused before any server exists, so they need none: a file of their own, beside the
 * effect tests of configuration.test.ts (which needs its server for all of them).
 */
// Each refused start is a process of its own that exits at once: they run side by side.
describe("a malformed or unknown value stops npm start with a clear message", () => {
  it.concurrent.each([
    [{ ACCESS_TOKEN_TTL_SECONDS: "two hours" }, 'ACCESS_TOKEN_TTL_SECONDS="two hours" must be a positive whole number'],
    [{ SERVICE_VERSION: "sixteen" }, "SERVICE_VERSION"],
    [{ ISSUER: "issuer.example.test" }, "ISSUER"],
    [{ ROOT_PASSWORD: "password" }, "ROOT_PASSWORD is refused"],
    // A port the fetch standard calls bad: the readiness check (and every browser) could never reach it.
    [{ PORT: "6666" }, 'PORT="6666" is a port browsers and fetch refuse'],
    [{ PORT: "10080" }, 'PORT="10080" is a port browsers and fetch refuse'],
    // The Worker's own check of the key (src/config-variables.ts secretKeyBaseProblems), never the value.
    [{ SECRET_KEY_BASE: "short" }, "SECRET_KEY_BASE is too short"],
    [{ SERVICE_VERSION: "17.3" }, 'SERVICE_VERSION="17.3" is not a version of the schedule: use one of 13.0 to 13.12, 14.0 to 14.10, 15.0 to 15.11, 16.0'],
  ])("%o", async (vars, message) => {
    const r = await startRefused(vars);
    expect(r.status).toBe(2);
    expect(r.output).toContain(message);
    expect(r.output).toContain("npm start: the configuration is refused");
  });
});

