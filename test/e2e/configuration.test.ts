import { create } from "@bufbuild/protobuf";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { VARIABLES } from "../../src/config-variables";
import { FileStreamSchema } from "../../src/gen/proto/plugin_pb";
import { passwordGrant } from "./pages-support";
import { header, pluginClient } from "./plugin-helpers";
import { ROOT_DIR, startRefused, startService, type RunningServer } from "./server";

/**
 * Issue 13, "configuration that works the same everywhere": `npm start` with a non-default value
 * for each variable README documents, and the effect of each one seen from outside.
 */
const ROOT_PASSWORD = "cfg-Root-Password-$HOME-9";
const VARS = {
  ROOT_PASSWORD,
  ISSUER: "http://issuer.example.test",
  ACCESS_TOKEN_TTL_SECONDS: "1234",
  SESSION_TTL_SECONDS: "2",
  SERVICE_VERSION: "15.0",
  SERVICE_REVISION: "cfg-test-rev",
  ALLOW_INSECURE_REDIRECTS: "false",
  GIT_ORIGIN: "http://127.0.0.1:9",
  SECRET_KEY_BASE: "a-secret-key-base-of-the-configuration-test-0123456789",
  UPLOAD_MAX_FILE_BYTES: "1000",
  SEED_DEMO_DATA: "false",
  BENCH_ROUTES: "true",
  LOCAL_DEV: "false",
};

let server: RunningServer;
let persist = "";
let base = "";
let token = "";

beforeAll(async () => {
  persist = mkdtempSync(path.join(tmpdir(), "edge-auth-config-"));
  const { ROOT_PASSWORD: rootPassword, ...vars } = VARS;
  server = await startService({ persistDir: persist, rootPassword, vars });
  base = server.baseURL;
  token = await passwordGrant(base, "root", ROOT_PASSWORD);
});

afterAll(async () => {
  await server?.stop();
  rmSync(persist, { recursive: true, force: true });
});

/** Signs in through the page with a tiny cookie jar; returns the cookies of the session. */
async function signIn(username: string, password: string): Promise<string> {
  const page = await fetch(`${base}/users/sign_in`);
  const cookies = page.headers.getSetCookie().map((c) => c.split(";")[0]);
  const csrf = /name="authenticity_token" value="([^"]+)"/.exec(await page.text())![1];
  const res = await fetch(`${base}/users/sign_in`, {
    method: "POST",
    redirect: "manual",
    headers: { Cookie: cookies.join("; "), "Content-Type": "application/x-www-form-urlencoded", Origin: base },
    body: new URLSearchParams({ authenticity_token: csrf, username, password, redirect_to: "/profile/applications" }),
  });
  expect(res.status).toBe(303);
  const session = res.headers.getSetCookie().filter((c) => !/Max-Age=0/i.test(c));
  expect(session.join("\n")).toContain(`Max-Age=${VARS.SESSION_TTL_SECONDS}`);
  const jar = new Map([...cookies, ...session.map((c) => c.split(";")[0])].map((c) => c.split("=", 2) as [string, string]));
  return [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
}

describe("every documented variable takes effect under npm start (issue 13, issue 8 item 17)", () => {
  it("ROOT_PASSWORD (with a $ in it) creates root and never appears on a command line", () => {
    // The password grant of beforeAll succeeded with it; `ps` must not show it.
    const ps = execFileSync("ps", ["-eo", "args"], { encoding: "utf8" });
    expect(ps).not.toContain(ROOT_PASSWORD);
    expect(ps).not.toContain(VARS.SECRET_KEY_BASE);
  });

  it("ISSUER is the issuer of the discovery document", async () => {
    const meta = (await (await fetch(`${base}/.well-known/oauth-authorization-server`)).json()) as { issuer: string; token_endpoint: string };
    expect(meta.issuer).toBe(VARS.ISSUER);
    expect(meta.token_endpoint).toBe(`${VARS.ISSUER}/oauth/token`);
  });

  it("ACCESS_TOKEN_TTL_SECONDS is a token's expires_in", async () => {
    const res = await fetch(`${base}/oauth/token`, { method: "POST", body: new URLSearchParams({ grant_type: "password", username: "root", password: ROOT_PASSWORD }) });
    expect(((await res.json()) as { expires_in: number }).expires_in).toBe(1234);
  });

  it("SERVICE_VERSION and SERVICE_REVISION are what /api/v4/version reports", async () => {
    const res = await fetch(`${base}/api/v4/version`, { headers: { Authorization: `Bearer ${token}` } });
    expect(await res.json()).toMatchObject({ version: "15.0.0", revision: "cfg-test-rev" });
  });

  it("SESSION_TTL_SECONDS ends a browser session after its lifetime", async () => {
    const cookie = await signIn("root", ROOT_PASSWORD);
    const during = await fetch(`${base}/profile/applications`, { headers: { Cookie: cookie }, redirect: "manual" });
    expect(during.status).toBe(200);
    await new Promise((r) => setTimeout(r, 2500));
    const after = await fetch(`${base}/profile/applications`, { headers: { Cookie: cookie }, redirect: "manual" });
    expect(after.status).toBe(302);
    expect(after.headers.get("location")).toContain("/users/sign_in");
  });

  it("ALLOW_INSECURE_REDIRECTS=false refuses an http: redirect URI for a non-loopback host", async () => {
    const res = await fetch(`${base}/api/v4/applications`, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
      body: JSON.stringify({ name: "insecure", redirect_uri: "http://app.example.com/cb", scopes: "api" }),
    });
    expect(res.status).toBe(400);
  });

  it("GIT_ORIGIN is where git requests go (an origin that is down answers 5xx, not the local one)", async () => {
    const created = await fetch(`${base}/api/v4/projects`, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
      body: JSON.stringify({ name: "cfg", path: "cfg" }),
    });
    expect(created.status).toBe(201);
    const refs = await fetch(`${base}/root/cfg.git/info/refs?service=git-upload-pack`, {
      headers: { Authorization: `Basic ${Buffer.from(`oauth2:${token}`).toString("base64")}` },
    });
    expect([502, 503]).toContain(refs.status);
  });

  it("UPLOAD_MAX_FILE_BYTES limits SendFile (Code 8 past it)", async () => {
    const client = pluginClient("connect", base, token);
    const h = header({ Func: "upload" });
    async function* parts() {
      yield create(FileStreamSchema, { Header: h, Name: "big.bin", TotalSize: 2000n, TotalPart: 1n, Part: 1n, Data: new Uint8Array(2000) });
    }
    const res = await client.sendFile(parts());
    expect(res.Code).toBe(8);
    expect(res.Desc).toContain("1000");
  });

  it("SEED_DEMO_DATA=false seeds nothing; BENCH_ROUTES=true mounts the bench floor", async () => {
    const demo = await fetch(`${base}/api/v4/groups/demo`, { headers: { Authorization: `Bearer ${token}` } });
    expect(demo.status).toBe(404);
    const bench = await fetch(`${base}/-/bench/empty`);
    expect(bench.status).toBe(200);
  });

  it("LOCAL_DEV=false with a strong SECRET_KEY_BASE serves (the production checks pass)", async () => {
    expect((await fetch(`${base}/-/health`)).status).toBe(200);
  });
});

describe("a malformed or unknown value stops npm start with a clear message (issue 13)", () => {
  it.each([
    [{ ACCESS_TOKEN_TTL_SECONDS: "two hours" }, 'ACCESS_TOKEN_TTL_SECONDS="two hours" must be a positive whole number'],
    [{ SERVICE_VERSION: "sixteen" }, "SERVICE_VERSION"],
    [{ ISSUER: "issuer.example.test" }, "ISSUER"],
    [{ ROOT_PASSWORD: "password" }, "ROOT_PASSWORD is refused"],
  ])("%o", (vars, message) => {
    const r = startRefused(vars);
    expect(r.status).toBe(2);
    expect(r.output).toContain(message);
    expect(r.output).toContain("npm start: the configuration is refused");
  });
});

describe("README's configuration table and the code list the same variables", () => {
  it("every row of src/config-variables.ts has a README row, and every README row is a variable", () => {
    const readme = readFileSync(path.join(ROOT_DIR, "README.md"), "utf8");
    const section = readme.slice(readme.indexOf("## Configuration"), readme.indexOf("## Other commands"));
    const documented = new Set<string>();
    for (const line of section.split("\n").filter((l) => l.startsWith("| `"))) {
      const firstCell = line.split("|")[1];
      for (const m of firstCell.matchAll(/`([A-Z0-9_]+)`/g)) documented.add(m[1]);
    }
    expect([...documented].sort()).toEqual(VARIABLES.map((v) => v.name).sort());
  });
});
