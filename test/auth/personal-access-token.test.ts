import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { AuthError } from "../../src/credentials/errors";
import { resolveToken } from "../../src/credentials/resolve";
import { makePat, makeUser } from "../helpers/fixtures";

describe("personal access tokens (spec, Authentication: PAT expiry is always enforced from 15.0)", () => {
  it("resolves a valid PAT to its user and scopes", async () => {
    const user = await makeUser();
    const token = await makePat(user.id, ["read_api"]);
    const p = await resolveToken(env, token);
    expect(p.user.id).toBe(user.id);
    expect(p.scopes).toEqual(["read_api"]);
    expect(p.kind).toBe("personal_access_token");
  });

  it("refuses a PAT past its expiry date", async () => {
    const user = await makeUser();
    const token = await makePat(user.id, ["api"], "2020-01-01");
    await expect(resolveToken(env, token)).rejects.toMatchObject({ reason: "expired" });
  });

  it("refuses an unknown token and a missing one", async () => {
    await expect(resolveToken(env, "glpat-nope")).rejects.toBeInstanceOf(AuthError);
    await expect(resolveToken(env, null)).rejects.toMatchObject({ reason: "missing" });
  });
});
