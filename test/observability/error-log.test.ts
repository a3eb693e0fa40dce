import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from "vitest";
import app from "../../src/app";
import type { Bindings } from "../../src/env";
import { errorLogLine } from "../../src/observability/error-log";

/**
 * docs/operations.md, "Logs": an unexpected error's log line carries the error's name, message and
 * stack, so an operator can find the cause, and never request data or a secret.
 */
let errorSpy: MockInstance<typeof console.error>;
beforeEach(() => {
  errorSpy = vi.spyOn(console, "error");
});
afterEach(() => errorSpy.mockRestore());

const SECRET_PAT = "glpat-AbCdEf0123456789AbCdEf0123";
const PASSWORD = "hunter2-correct-horse";

describe("the log line of an unexpected error", () => {
  it("through a family's renderer: one JSON line with family, request id, name, message and stack; no token, password or URL from the request", async () => {
    // A real failure: this env has no D1 binding, so the first query throws a TypeError.
    const broken: Partial<Bindings> = { ...env };
    delete broken.DB;
    const ctx = createExecutionContext();
    const res = await app.fetch(
      new Request(`http://localhost/api/v4/projects?private_token=${SECRET_PAT}&password=${PASSWORD}`, {
        headers: { Authorization: `Bearer ${SECRET_PAT}`, "X-Request-Id": "req-error-log-1" },
      }),
      broken as Bindings,
      ctx,
    );
    await waitOnExecutionContext(ctx);
    expect(res.status).toBe(500);
    const lines = errorSpy.mock.calls.map((args) => args.map(String).join(" "));
    const line = lines.map((l) => JSON.parse(l) as Record<string, any>).find((l) => l.msg === "unexpected error");
    expect(line).toBeDefined();
    expect(line).toMatchObject({ family: "rest", request_id: "req-error-log-1", method: "GET", error: { name: "TypeError" } });
    expect(line!.error.message.length).toBeGreaterThan(0);
    expect(line!.error.stack).toMatch(/TypeError/);
    expect(line!.error.stack.split("\n").length).toBeGreaterThan(1);
    const all = lines.join("\n");
    expect(all).not.toContain(SECRET_PAT);
    expect(all).not.toContain(PASSWORD);
    expect(all).not.toContain("private_token");
  });

  it("cuts drizzle's bound parameters and replaces credential-shaped text in message and stack", () => {
    const err = new Error(
      `Failed query: select * from users where token_hash = ?\nparams: ${"a".repeat(64)},alice@example.com\nBearer ${SECRET_PAT} password=${PASSWORD} ${"f0".repeat(32)}`,
    );
    const line = errorLogLine("rest", err, null);
    const text = JSON.stringify(line);
    expect(line.error.name).toBe("Error");
    expect(line.error.message).toContain("Failed query: select * from users where token_hash = ?");
    expect(line.error.stack).toContain("Failed query");
    for (const secret of ["a".repeat(64), "alice@example.com", SECRET_PAT, PASSWORD, "f0".repeat(32)]) expect(text).not.toContain(secret);
    expect(line.error.message).toContain("[redacted]");
  });
});
