import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { pendingEnrolment } from "../../src/services/accounts/two-factor";
import { withVars } from "../../src/config";
import { decryptWithAny, encryptString } from "../../src/crypto/encrypt";
import { getDb } from "../../src/db/client";
import { findUserById } from "../../src/db/users";
import { makeUser } from "../helpers/fixtures";

const OLD_KEY = "the-old-secret-key-base-0123456789abcdef";
const NEW_KEY = "the-new-secret-key-base-0123456789abcdef";

describe("SECRET_KEY_BASE rotation (docs/deploy.md: SECRET_KEY_BASE_PREVIOUS decrypts, never encrypts)", () => {
  it("decryptWithAny reads values sealed under the previous key and refuses unknown keys", async () => {
    const sealed = await encryptString(OLD_KEY, "otp-secret", "JBSWY3DPEHPK3PXP");
    expect(await decryptWithAny([NEW_KEY, OLD_KEY], "otp-secret", sealed)).toBe("JBSWY3DPEHPK3PXP");
    await expect(decryptWithAny([NEW_KEY], "otp-secret", sealed)).rejects.toThrow();
  });

  it("a TOTP secret enrolled before the rotation is still the same secret after it", async () => {
    const user = await makeUser();
    const before = await pendingEnrolment(withVars(env, { SECRET_KEY_BASE: OLD_KEY }), user);
    const stored = (await findUserById(getDb(env.DB), user.id))!;
    const during = await pendingEnrolment(withVars(env, { SECRET_KEY_BASE: NEW_KEY, SECRET_KEY_BASE_PREVIOUS: OLD_KEY }), stored);
    expect(during.secret).toBe(before.secret);
    // Without the previous key the old value is unreadable, and a new secret is offered instead.
    const without = await pendingEnrolment(withVars(env, { SECRET_KEY_BASE: NEW_KEY }), stored).catch(() => null);
    expect(without?.secret).not.toBe(before.secret);
  });
});
