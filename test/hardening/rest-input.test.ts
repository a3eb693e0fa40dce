import { describe, expect, it } from "vitest";
import { call, makeUserWithToken } from "../helpers/fixtures";

/**
 * Issue 8 items 6, 7, 9, 11, 16 and issue 12 "No 5xx from input" for the REST family (/api/v4):
 * hostile paths, bodies and ids get GitLab's JSON 4xx, never a 500.
 */
const admin = await makeUserWithToken({ isAdmin: true });

async function jsonOf(res: Response): Promise<Record<string, unknown>> {
  expect(res.headers.get("content-type") ?? "").toMatch(/^application\/json/);
  return res.json();
}

describe("path parameters are decoded once", () => {
  for (const path of ["/api/v4/projects/%25", "/api/v4/projects/%E0%A4%A", "/api/v4/groups/%25", "/api/v4/projects/%25/packages", "/api/v4/projects/a%2F%25b"]) {
    it(`GET ${path} answers a JSON 4xx`, async () => {
      const res = await call(path, { token: admin.token });
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      await jsonOf(res);
    });
  }
  it("a package file name with a lone % is a JSON 4xx", async () => {
    const res = await call("/api/v4/projects/1/packages/generic/pkg/1.0.0/a%25b", { token: admin.token });
    expect(res.status).toBeLessThan(500);
    await jsonOf(res);
  });
});

describe("malformed multipart bodies are 400", () => {
  const bodies: Array<[string, string]> = [
    ["no boundary", "multipart/form-data"],
    ["truncated", "multipart/form-data; boundary=xyz"],
  ];
  for (const [what, type] of bodies) {
    for (const [method, path, token] of [
      ["POST", "/api/v4/runners", undefined],
      ["POST", "/api/v4/runners/verify", undefined],
      ["DELETE", "/api/v4/runners", undefined],
      ["POST", "/api/v4/applications", admin.token],
      ["POST", "/api/v4/ci/lint", admin.token],
    ] as const) {
      it(`${method} ${path} with a ${what} multipart body answers 400 JSON`, async () => {
        const res = await call(path, { method, token, headers: { "Content-Type": type }, body: '--xyz\r\nContent-Disposition: form-data; name="token"\r\n\r\nabc' });
        expect(res.status).toBe(400);
        expect(await jsonOf(res)).toHaveProperty("message");
      });
    }
  }
});

describe("unknown /api/v4 paths and wrong methods answer in GitLab's shape", () => {
  it("an unknown path is GitLab's JSON 404", async () => {
    const res = await call("/api/v4/no/such/thing", { token: admin.token });
    expect(res.status).toBe(404);
    expect(await jsonOf(res)).toEqual({ error: "404 Not Found" });
  });
  it("an unknown path without a token is the same JSON 404", async () => {
    const res = await call("/api/v4/nothing-here");
    expect(res.status).toBe(404);
    expect(await jsonOf(res)).toEqual({ error: "404 Not Found" });
  });
  it("a wrong method on a known path is a JSON 405 with Allow", async () => {
    const res = await call("/api/v4/user", { method: "PATCH", token: admin.token });
    expect(res.status).toBe(405);
    expect(await jsonOf(res)).toEqual({ error: "405 Not Allowed" });
    expect(res.headers.get("allow")).toContain("GET");
  });
});

describe("a YAML alias bomb is a lint error", () => {
  const bomb = ["a: &a [x, x, x, x, x, x, x, x, x, x]", ..."bcdefghi".split("").map((k, i) => `${k}: &${k} [${Array(10).fill(`*${"abcdefghi"[i]}`).join(", ")}]`), "job:\n  script: *i"].join("\n");
  it("POST /api/v4/ci/lint answers 200 with valid:false", async () => {
    const res = await call("/api/v4/ci/lint", { method: "POST", token: admin.token, headers: { "Content-Type": "application/json" }, body: JSON.stringify({ content: bomb }) });
    expect(res.status).toBe(200);
    const body = (await jsonOf(res)) as { valid: boolean; errors: string[] };
    expect(body.valid).toBe(false);
    expect(body.errors.join()).toMatch(/alias/i);
  });
});

describe("ids are strict decimal", () => {
  for (const id of ["%201", "0x10", "1e3", "01", "1.0", "+1", "-1", "0", "99999999999999999999"]) {
    it(`DELETE /api/v4/applications/${id} is refused without touching application 1`, async () => {
      const res = await call(`/api/v4/applications/${id}`, { method: "DELETE", token: admin.token });
      expect([400, 404]).toContain(res.status);
      await jsonOf(res);
    });
    it(`GET /api/v4/users/${id} is refused`, async () => {
      const res = await call(`/api/v4/users/${id}`, { token: admin.token });
      expect([400, 404]).toContain(res.status);
      await jsonOf(res);
    });
  }
});

describe("oversized and deeply nested JSON bodies are refused, never a 500", () => {
  it("a parameter body over 1 MiB is GitLab's 413", async () => {
    const res = await call("/api/v4/ci/lint", { method: "POST", token: admin.token, headers: { "Content-Type": "application/json" }, body: JSON.stringify({ content: "x".repeat(2 * 1024 * 1024) }) });
    expect(res.status).toBe(413);
    expect(await jsonOf(res)).toEqual({ message: "413 Request Entity Too Large" });
  });
  it("a deeply nested JSON body is a 400", async () => {
    const deep = "[".repeat(100_000) + "]".repeat(100_000);
    const res = await call("/api/v4/applications", { method: "POST", token: admin.token, headers: { "Content-Type": "application/json" }, body: `{"name":${deep}}` });
    expect(res.status).toBe(400);
    await jsonOf(res);
  });
});
