import { describe, expect, it } from "vitest";
import { call } from "../helpers/fixtures";

/**
 * Issue 8 items 5, 10, 14 and issue 12 "No 5xx from input" for /api/graphql: broken documents,
 * parameters and expensive documents get GraphQL error bodies with a 4xx (or 200 with errors, as
 * GraphQL over HTTP says for application/json), never a 500.
 */
async function gqlRaw(init: RequestInit & { path?: string }) {
  const res = await call(init.path ?? "/api/graphql", init);
  const text = await res.text();
  let body: { data?: unknown; errors?: Array<{ message: string }> } | undefined;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error(`non-JSON answer ${res.status}: ${text.slice(0, 200)}`);
  }
  return { res, body: body! };
}

const post = (query: string, accept = "application/graphql-response+json") => ({
  method: "POST",
  headers: { "Content-Type": "application/json", Accept: accept },
  body: JSON.stringify({ query }),
});

/** 26 fragments, each spreading the previous one twice: 2^26 paths when walked naively. */
function fragmentBomb(): string {
  const names = "ABCDEFGHIJKLMNOPQRSTUVWXYZ".split("");
  const frags = names.map((n, i) => (i === 0 ? `fragment ${n} on Query { __typename }` : `fragment ${n} on Query { ...${names[i - 1]} ...${names[i - 1]} }`));
  return `query { ...Z }\n${frags.join("\n")}`;
}

describe("expensive documents (size, tokens, depth, complexity) are refused by validation", () => {
  it("the 26-fragment document answers a GraphQL error (each fragment's depth computed once)", async () => {
    const { res, body } = await gqlRaw(post(fragmentBomb()));
    expect(res.status).toBe(400);
    expect(body.errors?.[0]?.message).toMatch(/complexity|fragment|spread/i);
  });
  it("a document over the size limit is refused before parsing", async () => {
    const { res, body } = await gqlRaw(post(`query { ${"a: __typename ".repeat(20_000)} }`));
    expect(res.status).toBe(400);
    expect(body.errors?.[0]?.message).toMatch(/query size|too large/i);
  });
  it("a document with too many tokens is refused", async () => {
    // Under the size limit, but 6,000 punctuator tokens.
    const { res, body } = await gqlRaw(post(`query { a(x: ${"[]".repeat(3_000)}) }`));
    expect(res.status).toBe(400);
    expect(body.errors?.[0]?.message).toMatch(/token/i);
  });
  it("a document deeper than the limit is refused with GitLab's depth message", async () => {
    const deep = `query { ${"project(fullPath: \"a\") { ".repeat(20)}id${" }".repeat(20)} }`;
    const { res, body } = await gqlRaw(post(deep));
    expect(res.status).toBe(400);
    expect(body.errors?.[0]?.message).toMatch(/depth/i);
  });
  it("a document whose complexity exceeds the limit is refused", async () => {
    // 120 aliased top-level fields (360 points): shallow and small, but each costs resolver calls.
    const wide = `query { ${Array.from({ length: 120 }, (_, i) => `a${i}:currentUser{id username}`).join(" ")} }`;
    const { res, body } = await gqlRaw(post(wide));
    expect(res.status).toBe(400);
    expect(body.errors?.[0]?.message).toMatch(/complexity/i);
  });
});

describe("broken documents answer as GraphQL over HTTP says, never a 500", () => {
  const broken = ["{", "query {", "{".repeat(5000), "query { ".repeat(3000), "}{", "query ($x: ) { a }"];
  for (const q of broken) {
    it(`syntax error ${JSON.stringify(q.slice(0, 20))} is 400 with application/graphql-response+json`, async () => {
      const { res, body } = await gqlRaw(post(q));
      expect(res.status).toBe(400);
      expect(body.errors?.length).toBeGreaterThan(0);
    });
    it(`syntax error ${JSON.stringify(q.slice(0, 20))} is 200 with errors under application/json`, async () => {
      const { res, body } = await gqlRaw(post(q, "application/json"));
      expect(res.status).toBe(200);
      expect(body.errors?.length).toBeGreaterThan(0);
      expect(body.data).toBeUndefined();
    });
  }
  it("a validation error (unknown field) is 400 under application/graphql-response+json", async () => {
    const { res, body } = await gqlRaw(post("query { noSuchField }"));
    expect(res.status).toBe(400);
    expect(body.errors?.[0]?.message).toMatch(/noSuchField/);
  });
});

describe("malformed variables or extensions over GET and form encoding are a 400", () => {
  const q = encodeURIComponent("query { __typename }");
  for (const [name, value] of [
    ["variables", "{"],
    ["variables", "[1]"],
    ["variables", "%E0%A4%A"],
    ["extensions", "{"],
    ["extensions", "12"],
  ] as const) {
    it(`GET with ${name}=${value} is 400 with a GraphQL error`, async () => {
      const { res, body } = await gqlRaw({ path: `/api/graphql?query=${q}&${name}=${value}`, headers: { Accept: "application/json" } });
      expect(res.status).toBe(400);
      expect(body.errors?.length).toBeGreaterThan(0);
    });
    it(`form POST with ${name}=${value} is 400 with a GraphQL error`, async () => {
      const { res, body } = await gqlRaw({
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded", Accept: "application/json" },
        body: `query=${q}&${name}=${value}`,
      });
      expect(res.status).toBe(400);
      expect(body.errors?.length).toBeGreaterThan(0);
    });
  }
  it("a malformed JSON body is 400 with a GraphQL error", async () => {
    const { res, body } = await gqlRaw({ method: "POST", headers: { "Content-Type": "application/json" }, body: '{"query": ' });
    expect(res.status).toBe(400);
    expect(body.errors?.length).toBeGreaterThan(0);
  });
  it("a malformed multipart body is 400 with a GraphQL error", async () => {
    const { res, body } = await gqlRaw({ method: "POST", headers: { "Content-Type": "multipart/form-data" }, body: "--x\r\n" });
    expect(res.status).toBe(400);
    expect(body.errors?.length).toBeGreaterThan(0);
  });
});

describe("GraphQL follows the app's one CORS policy", () => {
  it("never answers Access-Control-Allow-Credentials: true", async () => {
    const res = await call("/api/graphql", { ...post("query { __typename }"), headers: { "Content-Type": "application/json", Origin: "https://evil.example" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-credentials")).toBeNull();
    expect(res.headers.get("access-control-allow-origin")).toBe("https://evil.example");
  });
  it("a preflight gets the app's policy (no credentials)", async () => {
    const res = await call("/api/graphql", {
      method: "OPTIONS",
      headers: { Origin: "https://spa.example", "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "authorization, content-type" },
    });
    expect(res.status).toBeLessThan(300);
    expect(res.headers.get("access-control-allow-credentials")).toBeNull();
    expect(res.headers.get("access-control-allow-methods") ?? "").toContain("POST");
  });
});
