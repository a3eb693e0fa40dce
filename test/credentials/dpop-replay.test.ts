import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { isDpopError } from "../../src/credentials/dpop-proof";
import { consumeProof, SeenJtis } from "../../src/credentials/dpop-replay";
import type { Bindings } from "../../src/env";
import { boundToken, proof } from "../helpers/dpop";
import { call, json } from "../helpers/fixtures";

/**
 * RFC 9449 §11.1 with the replay check off the serial path (docs/scaling.md, DPoP): the shared
 * DpopReplay objects are the only place that accepts a jti; an isolate's memory of the jtis it
 * sent only refuses; a safe method's route runs beside the check and its answer waits for the
 * verdict, any other method waits for it first.
 */

const USER = "/api/v4/user";

/** What consumeProof's caller awaits, as a verdict: "used" or the DPoP error code. */
async function verdict(p: Promise<void>): Promise<string> {
  try {
    await p;
    return "used";
  } catch (err) {
    if (isDpopError(err)) return err.dpop.error;
    throw err;
  }
}

describe("RFC 9449 §11.1: a proof's jti is used once across every isolate", () => {
  it("a proof accepted at the REST door is refused when replayed from another isolate (whose memory has never seen it)", async () => {
    const b = await boundToken();
    const jti = crypto.randomUUID();
    const dpop = await proof(b.key, USER, { htm: "GET", nonce: b.nonce, accessToken: b.token, jti });
    expect((await call(USER, { headers: { Authorization: `DPoP ${b.token}`, DPoP: dpop } })).status).toBe(200);
    const elsewhere = new SeenJtis();
    expect(await verdict(consumeProof(env as Bindings, { jkt: b.key.jkt, jti, iatMs: Date.now() }, elsewhere))).toBe("invalid_dpop_proof");
  });

  it("the isolate's memory refuses a replay but never accepts: a jti first used in another isolate is refused by the shared objects", async () => {
    const used = { jkt: "test-jkt-" + crypto.randomUUID(), jti: crypto.randomUUID(), iatMs: Date.now() };
    const [first, second, third] = [new SeenJtis(), new SeenJtis(), new SeenJtis()];
    expect(await verdict(consumeProof(env as Bindings, used, first))).toBe("used");
    expect(await verdict(consumeProof(env as Bindings, used, first))).toBe("invalid_dpop_proof");
    expect(await verdict(consumeProof(env as Bindings, used, second))).toBe("invalid_dpop_proof");
    expect(await verdict(consumeProof(env as Bindings, used, third))).toBe("invalid_dpop_proof");
  });

  it("the same jtis checked at once from two isolates: each is accepted exactly once", async () => {
    const jkt = "test-jkt-" + crypto.randomUUID();
    const jtis = Array.from({ length: 40 }, () => crypto.randomUUID());
    const [here, there] = [new SeenJtis(), new SeenJtis()];
    const verdicts = await Promise.all(jtis.flatMap((jti) => [here, there].map((seen) => verdict(consumeProof(env as Bindings, { jkt, jti, iatMs: Date.now() }, seen)))));
    for (let i = 0; i < jtis.length; i++) expect([verdicts[2 * i], verdicts[2 * i + 1]].sort()).toEqual(["invalid_dpop_proof", "used"]);
  });
});

describe("RFC 9449 §11.1 with the route beside the replay check (RFC 9110 §9.2.1 safe methods)", () => {
  it("a replayed proof for GET gets the refusal, not the route's answer", async () => {
    const b = await boundToken();
    const dpop = await proof(b.key, USER, { htm: "GET", nonce: b.nonce, accessToken: b.token });
    const send = () => call(USER, { headers: { Authorization: `DPoP ${b.token}`, DPoP: dpop } });
    expect(((await (await send()).json()) as { username: string }).username).toBe(b.username);
    const replayed = await send();
    expect(replayed.status).toBe(401);
    expect(replayed.headers.get("WWW-Authenticate")).toContain('error="invalid_dpop_proof"');
    expect(JSON.stringify(await replayed.json())).not.toContain(b.username);
  });

  it("a replayed proof for POST is refused before the route runs: nothing is created", async () => {
    const b = await boundToken("api");
    const dpop = await proof(b.key, "/api/v4/projects", { htm: "POST", nonce: b.nonce, accessToken: b.token });
    const create = (name: string) => call("/api/v4/projects", { ...json({ name, path: name }), method: "POST", headers: { "Content-Type": "application/json", Authorization: `DPoP ${b.token}`, DPoP: dpop } });
    const first = `first-${crypto.randomUUID().slice(0, 8)}`;
    const second = `second-${crypto.randomUUID().slice(0, 8)}`;
    expect((await create(first)).status).toBe(201);
    const replayed = await create(second);
    expect(replayed.status).toBe(401);
    expect(replayed.headers.get("WWW-Authenticate")).toContain('error="invalid_dpop_proof"');
    const stored = async (path: string) => (await env.DB.prepare("SELECT count(*) AS n FROM projects WHERE path = ?").bind(path).first<{ n: number }>())?.n;
    expect(await stored(first)).toBe(1);
    expect(await stored(second)).toBe(0);
  });
});
