import { describe, expect, it } from "vitest";
import { call, pkceTokens } from "./helpers";

describe("Scope enforcement (spec, Application scopes: tokens never exceed the application's scopes)", () => {
  it("a read_user token reads /api/v4/user but gets 403 insufficient_scope on a read_api route", async () => {
    const { tokens } = await pkceTokens({ scopes: ["read_user"] });
    expect(tokens.scope).toBe("read_user");
    expect((await call("/api/v4/user", { token: tokens.access_token })).status).toBe(200);
    const res = await call("/api/v4/projects", { token: tokens.access_token });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error: string }).error).toBe("insufficient_scope");
  });
});
