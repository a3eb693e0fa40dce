import { execFile, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { launchChromium } from "./browser";
import { apiCall, createUser, rootToken, shot } from "./pages-support";

/**
 * docs/clients.md, "oidc-agent": Debian's oidc-agent (4.2.6) generates an account with the device
 * flow (it always asks for offline_access) while headless Chromium signs in at the verification
 * URI and enters the code; `oidc-token` then prints an access token that /api/v4 accepts. The
 * agent is a daemon: the test starts its own, with a private HOME, and stops it.
 */
const run = promisify(execFile);
const base = inject("baseURL");
const home = mkdtempSync(path.join(tmpdir(), "oidc-agent-"));
const ENCRYPTION_PW = "oidc-agent-e2e-encryption-password";
let env: NodeJS.ProcessEnv = {};
let agentPid = 0;
let browser: Browser;
let app: { application_id: string; secret: string };
let user: { username: string; password: string };

beforeAll(async () => {
  // `oidc-agent` prints the shell lines OIDC_SOCK=...; export OIDC_SOCK; OIDCD_PID=...; and detaches.
  const out = execFileSync("oidc-agent", [], { env: { ...process.env, HOME: home }, encoding: "utf8" });
  const sock = /OIDC_SOCK=([^;]+);/.exec(out)?.[1];
  agentPid = Number(/OIDCD_PID=(\d+);/.exec(out)?.[1]);
  if (!sock || !agentPid) throw new Error(`oidc-agent did not start: ${out}`);
  env = { ...process.env, HOME: home, OIDC_SOCK: sock, OIDC_ENCRYPTION_PW: ENCRYPTION_PW };

  const admin = await rootToken(base, inject("rootPassword"));
  user = await createUser(base, admin, "oidcagent");
  // docs/clients.md: a confidential application with the scopes the account will ask for.
  app = await apiCall(base, "POST", "/applications", admin, {
    name: "oidc-agent",
    redirect_uri: "http://localhost:4242",
    scopes: "openid profile email read_user",
    confidential: true,
  });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  if (agentPid) {
    try {
      process.kill(agentPid, "SIGTERM");
    } catch {
      // already gone
    }
  }
  rmSync(home, { recursive: true, force: true });
});

describe("docs/clients.md oidc-agent: oidc-gen's device flow, then oidc-token", () => {
  it("oidc-gen --flow=device gets an account (offline_access asked for), oidc-token prints a token /api/v4 accepts", async () => {
    const gen = spawn(
      "oidc-gen",
      [
        `--iss=${base}`,
        `--client-id=${app.application_id}`,
        `--client-secret=${app.secret}`,
        "--scope=openid profile email read_user",
        "--flow=device",
        "--pw-env",
        "--prompt=none",
        "--confirm-default",
        "--no-url-call",
        "e2e",
      ],
      { env, stdio: ["ignore", "pipe", "pipe"] },
    );
    let output = "";
    gen.stdout.on("data", (d) => (output += d));
    gen.stderr.on("data", (d) => (output += d));
    const exited = new Promise<number | null>((resolve) => gen.on("exit", resolve));

    const deadline = Date.now() + 60_000;
    let code: string | undefined;
    while (!code && Date.now() < deadline && gen.exitCode === null) {
      code = /\b([A-Z]{4}-[A-Z]{4})\b/.exec(output)?.[1];
      if (!code) await new Promise((r) => setTimeout(r, 200));
    }
    expect(code, output).toBeDefined();
    expect(output).toContain(`${base}/oauth/device`);

    const page = await (await browser.newContext()).newPage();
    await page.goto(`${base}/oauth/device`);
    await page.getByLabel("Username").fill(user.username);
    await page.getByLabel("Password").fill(user.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByLabel("Code").fill(code!);
    await page.getByRole("button", { name: "Continue" }).click();
    await page.getByRole("button", { name: "Authorize" }).click();
    await page.getByText("Device authorized").first().waitFor();
    await shot(page, "client-oidc-agent-device-authorized");

    expect(await exited, output).toBe(0);
    const { stdout: token } = await run("oidc-token", ["e2e"], { env });
    const me = await fetch(`${base}/api/v4/user`, { headers: { Authorization: `Bearer ${token.trim()}` } });
    expect(me.status).toBe(200);
    expect(((await me.json()) as { username: string }).username).toBe(user.username);
  });
});
