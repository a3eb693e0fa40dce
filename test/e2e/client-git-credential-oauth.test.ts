import { spawn } from "node:child_process";
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { launchChromium } from "./browser";
import { apiCall, createUser, passwordGrant, rootToken, shot } from "./pages-support";
import { cleanGitEnv } from "./git-env";

/**
 * docs/clients.md, "git-credential-oauth": Debian's git-credential-oauth (0.4.2) as the only
 * credential helper of a real `git clone` against `npm start`. The helper runs the authorization
 * code flow with PKCE through its own loopback redirect; headless Chromium signs in and presses
 * "Authorize" on the URL the helper prints; git then clones with oauth2:<access token>.
 * The configuration is exactly the one docs/clients.md gives, with this server's URL.
 */
const base = inject("baseURL");
const work = mkdtempSync(path.join(tmpdir(), "git-credential-oauth-"));
let browser: Browser;
let clientId = "";
let user: { username: string; password: string };
let projectPath = "";

beforeAll(async () => {
  const admin = await rootToken(base, inject("rootPassword"));
  user = await createUser(base, admin, "gco");
  // docs/clients.md: a public application, redirect URI http://127.0.0.1 (any loopback port).
  const app = await apiCall(base, "POST", "/applications", admin, {
    name: "git-credential-oauth",
    redirect_uri: "http://127.0.0.1",
    scopes: "read_repository write_repository",
    confidential: false,
  });
  clientId = app.application_id;
  const token = await passwordGrant(base, user.username, user.password);
  const project = await apiCall(base, "POST", "/projects", token, { name: "Helper clone", initialize_with_readme: true, visibility: "private" });
  projectPath = project.path_with_namespace;
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  rmSync(work, { recursive: true, force: true });
});

describe("docs/clients.md git-credential-oauth: the helper's loopback flow with PKCE, then git clone", () => {
  it("Debian's git-credential-oauth gets a token through the consent page and git clones with it", async () => {
    const home = path.join(work, "home");
    mkdirSync(home);
    // The helper opens its URL with `open`; headless, the test's browser opens it instead.
    const bin = path.join(work, "bin");
    mkdirSync(bin);
    writeFileSync(path.join(bin, "open"), "#!/bin/sh\nexit 0\n");
    chmodSync(path.join(bin, "open"), 0o755);
    const env = cleanGitEnv(home, { PATH: `${bin}:${process.env.PATH}` });
    const config = (...args: string[]) => execFileSync("git", ["config", "--global", ...args], { env });
    config("--add", "credential.helper", "oauth");
    config(`credential.${base}.oauthClientId`, clientId);
    config(`credential.${base}.oauthScopes`, "read_repository write_repository");
    config(`credential.${base}.oauthAuthURL`, "/oauth/authorize");
    config(`credential.${base}.oauthTokenURL`, "/oauth/token");

    const target = path.join(work, "clone");
    const git = spawn("git", ["clone", `${base}/${projectPath}.git`, target], { env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    git.stdout.on("data", (d) => (output += d));
    git.stderr.on("data", (d) => (output += d));
    const exited = new Promise<number | null>((resolve) => git.on("exit", resolve));

    const deadline = Date.now() + 60_000;
    let authorizeUrl: string | undefined;
    while (!authorizeUrl && Date.now() < deadline && git.exitCode === null) {
      authorizeUrl = /(http:\/\/\S+\/oauth\/authorize\?\S+)/.exec(output)?.[1];
      if (!authorizeUrl) await new Promise((r) => setTimeout(r, 200));
    }
    expect(authorizeUrl, output).toBeDefined();
    const authorize = new URL(authorizeUrl!);
    expect(authorize.searchParams.get("code_challenge_method")).toBe("S256");
    expect(authorize.searchParams.get("redirect_uri")).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

    const page = await (await browser.newContext()).newPage();
    await page.goto(authorizeUrl!);
    await page.getByLabel("Username").fill(user.username);
    await page.getByLabel("Password").fill(user.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("button", { name: "Authorize" }).click();
    await page.waitForURL(/^http:\/\/127\.0\.0\.1:\d+\/\?code=/);
    expect(await page.textContent("body")).toContain("Success");
    await shot(page, "client-git-credential-oauth-done");

    expect(await exited, output).toBe(0);
    expect(readFileSync(path.join(target, "README.md"), "utf8")).toBe("# Helper clone\n");
  });
});
