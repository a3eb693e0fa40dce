import { spawn } from "node:child_process";
import path from "node:path";
import { describe, expect, inject, it } from "vitest";
import { ROOT_DIR } from "./server";

/** docs/deploy.md, "Smoke test": scripts/smoke.mjs passes against `npm start`. */
describe("scripts/smoke.mjs against npm start (the deploy guide's smoke test)", () => {
  it("runs README's main flows and exits 0", async () => {
    const child = spawn(process.execPath, [path.join(ROOT_DIR, "scripts/smoke.mjs"), inject("baseURL")], {
      env: { ...process.env, SMOKE_PASSWORD: inject("rootPassword") },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    const status = await new Promise<number | null>((resolve) => child.on("exit", resolve));
    expect(output).toContain("✓ authorization code with PKCE");
    expect(output).toContain("✓ git ls-remote over HTTPS");
    expect(output).toContain("smoke test passed");
    expect(status, output).toBe(0);
  });

  it("fails (exit 1) when a flow fails: a wrong password", async () => {
    const child = spawn(process.execPath, [path.join(ROOT_DIR, "scripts/smoke.mjs"), inject("baseURL")], {
      env: { ...process.env, SMOKE_PASSWORD: "not-the-password-123" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    const status = await new Promise<number | null>((resolve) => child.on("exit", resolve));
    expect(status).toBe(1);
    expect(output).toContain("✗ password grant as root");
  });
});
