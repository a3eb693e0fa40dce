import { env } from "cloudflare:test";
import { and, eq } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { findApplicationByUid, saveMetadataDocumentApplication } from "../../src/db/applications";
import { getDb } from "../../src/db/client";
import { auditEvents } from "../../src/db/schema/accounts";
import { Browser, signedInUser } from "../helpers/browser";
import { callFrom } from "../helpers/fixtures";
import { authorizeUrl, decide, makeApp, pkce, unique } from "./helpers";

/**
 * docs/agents.md, "Client ID Metadata Documents", the document client's cost and lifetime: a
 * document is fetched under a throttle per client address (the mechanism of POST /oauth/register,
 * src/oauth/throttle.ts), and its application is stored only when a signed-in person approves it,
 * audited then. Outbound HTTP is the Worker's global fetch, replaced by a stub that serves each
 * test's documents (as in client-metadata-document.test.ts).
 */
const REDIRECT = "https://agent.example/callback";
let served: Set<string>;
let fetched: string[];
const realFetch = globalThis.fetch;

beforeEach(() => {
  served = new Set();
  fetched = [];
  vi.spyOn(globalThis, "fetch").mockImplementation(async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    if (!served.has(url)) return realFetch(input, init);
    fetched.push(url);
    const document = { client_id: url, client_name: "Lifetime Agent", redirect_uris: [REDIRECT], scope: "read_user" };
    return new Response(JSON.stringify(document), { headers: { "Content-Type": "application/json" } });
  });
});
afterEach(() => vi.restoreAllMocks());

function documentUrl(): string {
  const url = `https://agent.example/oauth/${unique("client")}.json`;
  served.add(url);
  return url;
}

async function authorizeParams(clientId: string) {
  const { challenge } = await pkce();
  return { client_id: clientId, redirect_uri: REDIRECT, response_type: "code", code_challenge: challenge, code_challenge_method: "S256", state: "s" };
}

/** A browser whose requests come from one client address of its own (the throttle's key). */
const browserFrom = (ip: string) => new Browser(callFrom(ip));
let nextAddress = 1;
const freshAddress = () => `198.51.100.${nextAddress++}`;

describe("Client ID Metadata Documents: stored only when a person approves (docs/agents.md, document clients)", () => {
  it("anonymous authorization requests fetch the document and store nothing: no application row, nothing in GET /api/v4/applications", async () => {
    const browser = browserFrom(freshAddress());
    const urls = [documentUrl(), documentUrl(), documentUrl()];
    for (const url of urls) {
      const res = await browser.fetch(authorizeUrl(await authorizeParams(url)));
      expect(res.status).toBe(302);
      expect(res.headers.get("location")).toMatch(/^\/users\/sign_in/);
    }
    expect(fetched).toEqual(urls);
    for (const url of urls) expect(await findApplicationByUid(getDb(env.DB), url)).toBeNull();
  });

  it("the consent page stores nothing; denying stores nothing", async () => {
    const { browser } = await signedInUser(browserFrom(freshAddress()));
    const url = documentUrl();
    const consent = await browser.fetch(authorizeUrl(await authorizeParams(url)));
    expect(consent.status).toBe(200);
    expect(await consent.text()).toContain("Lifetime Agent");
    expect(await findApplicationByUid(getDb(env.DB), url)).toBeNull();
    const denied = await decide(browser, await authorizeParams(url), "deny");
    expect(new URL(denied.headers.get("location")!).searchParams.get("error")).toBe("access_denied");
    expect(await findApplicationByUid(getDb(env.DB), url)).toBeNull();
  });

  it("approving stores the application, audited with the person and the client address, and later requests use it without a fetch", async () => {
    const ip = freshAddress();
    const { browser, user } = await signedInUser(browserFrom(ip));
    const url = documentUrl();
    const approved = await decide(browser, await authorizeParams(url));
    expect(new URL(approved.headers.get("location")!).searchParams.get("code")).toBeTruthy();
    const row = await findApplicationByUid(getDb(env.DB), url);
    expect(row).not.toBeNull();
    expect(row!.name).toContain("Lifetime Agent");
    expect(row!.dynamic).toBe(true);
    const audit = await getDb(env.DB)
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.action, "metadata_document_application_created"), eq(auditEvents.entityId, String(row!.id))));
    expect(audit).toHaveLength(1);
    expect(audit[0].authorId).toBe(user.id);
    expect(audit[0].ipAddress).toBe(ip);
    expect(JSON.parse(audit[0].details)).toMatchObject({ client_id: url, name: row!.name });

    const before = fetched.length;
    expect((await browser.fetch(authorizeUrl(await authorizeParams(url)))).status).toBe(200);
    expect(fetched.length).toBe(before);
  });
});

describe("Client ID Metadata Documents: fetches throttled per client address (docs/agents.md, document clients)", () => {
  it("after 30 fetches of documents with no stored application from one address, the next request is 429 with Retry-After and fetches nothing; another address is unaffected", async () => {
    const attacker = browserFrom(freshAddress());
    for (let i = 0; i < 30; i++) {
      const res = await attacker.fetch(authorizeUrl(await authorizeParams(documentUrl())));
      expect(res.status, `request ${i + 1}`).toBe(302);
    }
    expect(fetched).toHaveLength(30);
    const refused = await attacker.fetch(authorizeUrl(await authorizeParams(documentUrl())));
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await refused.text()).toMatch(/Too many client metadata documents/);
    expect(fetched).toHaveLength(30);

    const other = browserFrom(freshAddress());
    expect((await other.fetch(authorizeUrl(await authorizeParams(documentUrl())))).status).toBe(302);
    expect(fetched).toHaveLength(31);
  });
});

describe("Client ID Metadata Documents: the migration that removes document clients no one approved", () => {
  it("removes document applications that hold no grant, and keeps approved ones and other applications", async () => {
    const db = getDb(env.DB);
    const fields = { name: "Old", redirectUri: REDIRECT, scopes: ["read_user"], accessTokenTtlSeconds: 7200, expiresAt: Date.now() + 60_000 };
    const unapproved = (await saveMetadataDocumentApplication(db, { ...fields, uid: documentUrl() }))!;
    const approved = (await saveMetadataDocumentApplication(db, { ...fields, uid: documentUrl() }))!;
    const { user } = await signedInUser();
    await env.DB.prepare("INSERT INTO oauth_token_families (id, application_id, user_id, grant_type, scopes, status, created_at) VALUES (?, ?, ?, 'authorization_code', 'read_user', 'active', ?)")
      .bind(unique("family"), approved.id, user.id, Date.now())
      .run();
    const { app: registered } = await makeApp();
    const migration = env.TEST_MIGRATIONS.find((m) => m.name.includes("sweep_unapproved_document_clients"));
    expect(migration).toBeDefined();
    await env.DB.batch(migration!.queries.map((q) => env.DB.prepare(q)));
    expect(await findApplicationByUid(db, unapproved.uid)).toBeNull();
    expect(await findApplicationByUid(db, approved.uid)).not.toBeNull();
    expect(await findApplicationByUid(db, registered.uid)).not.toBeNull();
  });
});
