import { describe, expect, it } from "vitest";
import { decryptString, encryptString } from "../../src/crypto/encrypt";
import { base32Decode, base32Encode, generateTotpSecret, otpauthUri, totp, verifyTotp, type TotpAlgorithm } from "../../src/crypto/totp";

const enc = (s: string) => new TextEncoder().encode(s);

describe("TOTP, RFC 6238 Appendix B test vectors", () => {
  const seeds: Record<TotpAlgorithm, Uint8Array> = {
    "SHA-1": enc("12345678901234567890"),
    "SHA-256": enc("12345678901234567890123456789012"),
    "SHA-512": enc("1234567890123456789012345678901234567890123456789012345678901234"),
  };
  const vectors: [number, string, string, string][] = [
    [59, "94287082", "46119246", "90693936"],
    [1111111109, "07081804", "68084774", "25091201"],
    [1111111111, "14050471", "67062674", "99943326"],
    [1234567890, "89005924", "91819424", "93441116"],
    [2000000000, "69279037", "90698825", "38618901"],
    [20000000000, "65353130", "77737706", "47863826"],
  ];
  for (const [time, sha1, sha256, sha512] of vectors) {
    it(`T=${time}`, async () => {
      expect(await totp(seeds["SHA-1"], time, { digits: 8 })).toBe(sha1);
      expect(await totp(seeds["SHA-256"], time, { digits: 8, algorithm: "SHA-256" })).toBe(sha256);
      expect(await totp(seeds["SHA-512"], time, { digits: 8, algorithm: "SHA-512" })).toBe(sha512);
    });
  }
});

describe("TOTP verification (RFC 6238 §5.2: one step of drift either side)", () => {
  it("accepts the current code and the neighbouring steps, refuses older ones and malformed input", async () => {
    const secret = generateTotpSecret();
    const key = base32Decode(secret);
    const now = 1_700_000_000_000;
    const step = Math.floor(now / 30_000);
    expect(await verifyTotp(secret, await totp(key, now / 1000), now)).toBe(step);
    expect(await verifyTotp(secret, await totp(key, now / 1000 - 30), now)).toBe(step - 1);
    expect(await verifyTotp(secret, await totp(key, now / 1000 + 30), now)).toBe(step + 1);
    expect(await verifyTotp(secret, await totp(key, now / 1000 - 90), now)).toBeNull();
    expect(await verifyTotp(secret, "12345", now)).toBeNull();
    expect(await verifyTotp(secret, "abcdef", now)).toBeNull();
  });

  it("base32 (RFC 4648 §10 vectors) round-trips and secrets are 160 bits", () => {
    expect(base32Encode(enc("foobar"))).toBe("MZXW6YTBOI");
    expect(new TextDecoder().decode(base32Decode("MZXW6YTBOI======"))).toBe("foobar");
    expect(base32Decode(generateTotpSecret()).length).toBe(20);
  });

  it("builds the otpauth:// URI authenticator apps read", () => {
    expect(otpauthUri("Edge Auth", "a@b.example", "ABC")).toBe(
      "otpauth://totp/Edge%20Auth:a%40b.example?secret=ABC&issuer=Edge+Auth&algorithm=SHA1&digits=6&period=30",
    );
  });
});

describe("AES-GCM under SECRET_KEY_BASE for TOTP secrets", () => {
  it("round-trips, never contains the plaintext, and fails under another key or purpose", async () => {
    const sealed = await encryptString("key-base-1", "otp-secret", "JBSWY3DPEHPK3PXP");
    expect(sealed).not.toContain("JBSWY3DPEHPK3PXP");
    expect(await decryptString("key-base-1", "otp-secret", sealed)).toBe("JBSWY3DPEHPK3PXP");
    await expect(decryptString("key-base-2", "otp-secret", sealed)).rejects.toThrow();
    await expect(decryptString("key-base-1", "other", sealed)).rejects.toThrow();
    expect(await encryptString("key-base-1", "otp-secret", "JBSWY3DPEHPK3PXP")).not.toBe(sealed);
  });
});
