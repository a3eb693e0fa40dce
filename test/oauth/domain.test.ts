import { describe, expect, it } from "vitest";
import { isValidVerifier, s256 } from "../../src/domain/pkce";
import { matchesRegistered, registeredUris } from "../../src/domain/redirect-uri";
import { parseAccessToken, parseCode, parseRefreshToken, mintAccessToken, mintCode, mintRefreshToken, newFamilyId, openPair, sealPair } from "../../src/credentials/oauth-token-format";

describe("PKCE (spec, PKCE values; RFC 7636)", () => {
  it("§4.1 length (43 to 128 characters) is kept; other printable characters are taken as GitLab takes them (DESIGN, Agents)", () => {
    expect(isValidVerifier("a".repeat(43))).toBe(true);
    expect(isValidVerifier("a".repeat(128))).toBe(true);
    expect(isValidVerifier("a".repeat(42))).toBe(false);
    expect(isValidVerifier("a".repeat(129))).toBe(false);
    expect(isValidVerifier("a".repeat(40) + "+/=")).toBe(true);
    expect(isValidVerifier("a".repeat(42) + " ")).toBe(false);
    expect(isValidVerifier("a".repeat(42) + "\n")).toBe(false);
    expect(isValidVerifier("a".repeat(42) + "é")).toBe(false);
  });

  it("Appendix B: S256 of the RFC's example verifier", async () => {
    expect(await s256("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")).toBe("E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM");
  });
});

describe("Redirect URIs (DESIGN; RFC 8252 §7.3)", () => {
  const reg = registeredUris("https://a.example/cb\r\nhttp://127.0.0.1/cb\n\nhttp://localhost:8080/x");
  it("registered one per line; exact match", () => {
    expect(reg).toEqual(["https://a.example/cb", "http://127.0.0.1/cb", "http://localhost:8080/x"]);
    expect(matchesRegistered("https://a.example/cb", reg, false)).toBe(true);
    expect(matchesRegistered("https://a.example/cb/", reg, false)).toBe(false);
    expect(matchesRegistered("https://a.example/cb?x=1", reg, false)).toBe(false);
    expect(matchesRegistered("https://a.example/cb#f", ["https://a.example/cb#f"], false)).toBe(false);
  });
  it("the port of a loopback URI may vary; nothing else", () => {
    expect(matchesRegistered("http://127.0.0.1:49152/cb", reg, false)).toBe(true);
    expect(matchesRegistered("http://localhost:1/x", reg, false)).toBe(true);
    expect(matchesRegistered("http://127.0.0.1:49152/other", reg, false)).toBe(false);
    expect(matchesRegistered("http://127.0.0.2/cb", reg, false)).toBe(false);
  });
  it("http: only for loopback hosts unless insecure redirects are allowed", () => {
    expect(matchesRegistered("http://a.example/cb", ["http://a.example/cb"], false)).toBe(false);
    expect(matchesRegistered("http://a.example/cb", ["http://a.example/cb"], true)).toBe(true);
    expect(matchesRegistered("javascript:alert(1)", ["javascript:alert(1)"], true)).toBe(false);
  });
});

describe("Token format (docs/oauth.md): family id and user inside, 256 random bits", () => {
  it("round-trips and rejects other shapes", () => {
    const fid = newFamilyId();
    expect(parseAccessToken(mintAccessToken(42, fid))).toEqual({ userId: 42, fid });
    expect(parseRefreshToken(mintRefreshToken(42, fid))).toEqual({ userId: 42, fid });
    expect(parseCode(mintCode(42, fid))).toEqual({ userId: 42, fid });
    expect(parseAccessToken(mintRefreshToken(42, fid))).toBeNull();
    expect(parseRefreshToken(mintAccessToken(42, fid))).toBeNull();
    expect(parseAccessToken("glpat-abc")).toBeNull();
  });
  it("the grace seal opens only with the replaced refresh token", async () => {
    const fid = newFamilyId();
    const old = mintRefreshToken(1, fid);
    const sealed = await sealPair(old, fid, { a: 1 });
    expect(await openPair(old, fid, sealed)).toEqual({ a: 1 });
    await expect(openPair(mintRefreshToken(1, fid), fid, sealed)).rejects.toThrow();
  });
});
