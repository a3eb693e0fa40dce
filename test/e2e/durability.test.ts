import { create } from "@bufbuild/protobuf";
import { createHash, randomFillSync } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { FileStreamSchema } from "../../src/gen/proto/plugin_pb";
import { createUser, passwordGrant, rootToken } from "./pages-support";
import { hiddenFields, Jar } from "./form-jar";
import { dec, enc, header, pluginClient } from "./plugin-helpers";
import { startService, type RunningServer } from "./server";

/**
 * Issue 12, "Durability": state made on one `npm start` still works after stopping it and starting
 * it again on the same PERSIST_DIR: OAuth access and refresh tokens, personal access tokens, a
 * browser session, a SendFile upload and a generic package file. This file runs its own server
 * lifecycle (own port, own state directory), apart from the shared one of global-setup.ts.
 */
const persist = mkdtempSync(path.join(tmpdir(), "edge-auth-durability-"));
const rootPassword = "durability-Root-Password-9";
let server: RunningServer | undefined;
afterAll(async () => {
  await server?.stop();
  rmSync(persist, { recursive: true, force: true });
});

describe("durability: state outlives a restart of npm start on the same state directory", () => {
  it("tokens, sessions, uploaded files and package files survive stopping and starting on the same state", async () => {
    server = await startService({ persistDir: persist, rootPassword });
    let base = server.baseURL;
    const root = await rootToken(base, rootPassword);
    const auth = (t: string) => ({ Authorization: `Bearer ${t}` });
    const user = await createUser(base, root, "durable");

    // A personal access token (admin API) and an OAuth token from the password grant.
    const patRes = await fetch(`${base}/api/v4/users/${user.id}/personal_access_tokens`, {
      method: "POST",
      headers: { ...auth(root), "Content-Type": "application/json" },
      body: JSON.stringify({ name: "durable", scopes: ["api"], expires_at: new Date(Date.now() + 7 * 86400_000).toISOString().slice(0, 10) }),
    });
    expect(patRes.status).toBe(201);
    const pat = ((await patRes.json()) as { token: string }).token;
    const grantToken = await passwordGrant(base, user.username, user.password, "api");

    // A browser session, and an authorization-code grant with a refresh token.
    const redirect = "http://127.0.0.1:9/callback";
    const appRes = await fetch(`${base}/api/v4/applications`, {
      method: "POST",
      headers: { ...auth(root), "Content-Type": "application/json" },
      body: JSON.stringify({ name: "durable app", redirect_uri: redirect, scopes: "api", confidential: true }),
    });
    expect(appRes.status).toBe(201);
    const app = (await appRes.json()) as { application_id: string; secret: string };
    const jar = new Jar(base);
    const signInPage = await (await jar.fetch("/users/sign_in")).text();
    const signedIn = await jar.post("/users/sign_in", { ...hiddenFields(signInPage), username: user.username, password: user.password });
    expect(signedIn.status).toBe(303);
    const consent = await jar.fetch(`/oauth/authorize?${new URLSearchParams({ client_id: app.application_id, redirect_uri: redirect, response_type: "code", scope: "api", state: "s" })}`);
    expect(consent.status).toBe(200);
    const decided = await jar.post("/oauth/authorize", { ...hiddenFields(await consent.text()), decision: "approve" });
    const code = new URL(decided.headers.get("location")!).searchParams.get("code")!;
    const tokenRes = await fetch(`${base}/oauth/token`, {
      method: "POST",
      body: new URLSearchParams({ grant_type: "authorization_code", code, redirect_uri: redirect, client_id: app.application_id, client_secret: app.secret }),
    });
    expect(tokenRes.status).toBe(200);
    const tokens = (await tokenRes.json()) as { access_token: string; refresh_token: string };

    // A SendFile upload and a generic package file.
    const bytes = randomFillSync(new Uint8Array(3 * 1024 * 1024 + 17));
    const sha256 = createHash("sha256").update(bytes).digest("hex");
    async function* parts() {
      yield create(FileStreamSchema, { Header: header({ Func: "upload" }), Name: "durable.bin", Purpose: "e2e", TotalSize: BigInt(bytes.byteLength), TotalPart: 1n, Part: 1n, Data: bytes });
    }
    const sent = await pluginClient("connect", base, pat).sendFile(parts());
    expect(sent.Code, sent.Desc).toBe(0);
    const fileId = (JSON.parse(dec(sent.Data)) as { id: string }).id;
    const project = (await (
      await fetch(`${base}/api/v4/projects`, { method: "POST", headers: { ...auth(pat), "Content-Type": "application/json" }, body: JSON.stringify({ name: "durable-project" }) })
    ).json()) as { id: number };
    const pkgPath = `/api/v4/projects/${project.id}/packages/generic/durable/1.0.0/blob.bin`;
    expect((await fetch(`${base}${pkgPath}`, { method: "PUT", headers: { "PRIVATE-TOKEN": pat }, body: bytes })).status).toBe(201);

    // Stop, and start again on the same state.
    await server.stop();
    server = await startService({ persistDir: persist, rootPassword });
    base = server.baseURL;
    jar.base = base;

    for (const t of [pat, grantToken, tokens.access_token]) {
      const me = await fetch(`${base}/api/v4/user`, { headers: auth(t) });
      expect(me.status).toBe(200);
      expect(((await me.json()) as { username: string }).username).toBe(user.username);
    }
    expect((await jar.fetch("/profile/personal_access_tokens")).status).toBe(200);
    const refreshed = await fetch(`${base}/oauth/token`, {
      method: "POST",
      body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: tokens.refresh_token, client_id: app.application_id, client_secret: app.secret }),
    });
    expect(refreshed.status).toBe(200);
    const rotated = (await refreshed.json()) as { access_token: string };
    expect((await fetch(`${base}/api/v4/user`, { headers: auth(rotated.access_token) })).status).toBe(200);

    const back = createHash("sha256");
    let length = 0;
    for await (const chunk of pluginClient("connect", base, pat).chat({ Header: header({ Func: "files.read" }), Data: enc(JSON.stringify({ id: fileId })) })) {
      expect(chunk.Code, chunk.Desc).toBe(0);
      back.update(chunk.Data);
      length += chunk.Data.byteLength;
    }
    expect(length).toBe(bytes.byteLength);
    expect(back.digest("hex")).toBe(sha256);

    const pkg = await fetch(`${base}${pkgPath}`, { headers: { "PRIVATE-TOKEN": pat } });
    expect(pkg.status).toBe(200);
    expect(createHash("sha256").update(new Uint8Array(await pkg.arrayBuffer())).digest("hex")).toBe(sha256);
  });
});
