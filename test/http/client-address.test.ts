import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { withVars } from "../../src/config";
import { clientAddress } from "../../src/http/client-address";

/**
 * DESIGN.md "Client address": one function decides the client address. CF-Connecting-IP is the
 * address (Cloudflare, and the front of npm start, set it from the connection); X-Forwarded-For is
 * read only when the operator opts in with CLIENT_ADDRESS_HEADER, and then only its last entry, the
 * one the operator's proxy appended.
 */
const req = (headers: Record<string, string>) => new Request("http://localhost/", { headers });
const xff = withVars(env, { CLIENT_ADDRESS_HEADER: "X-Forwarded-For" });

describe("the client address (DESIGN.md, Client address)", () => {
  it("is CF-Connecting-IP by default, and X-Forwarded-For is never read without the opt-in", () => {
    expect(clientAddress(req({ "CF-Connecting-IP": "203.0.113.9" }), env)).toBe("203.0.113.9");
    expect(clientAddress(req({ "X-Forwarded-For": "203.0.113.9" }), env)).toBeNull();
    expect(clientAddress(req({ "CF-Connecting-IP": "203.0.113.9", "X-Forwarded-For": "198.51.100.1" }), env)).toBe("203.0.113.9");
    expect(clientAddress(req({}), env)).toBeNull();
  });

  it("with CLIENT_ADDRESS_HEADER=X-Forwarded-For is the last entry of X-Forwarded-For, and CF-Connecting-IP is ignored", () => {
    // Entries before the last are whatever the client sent; the last one is the proxy's.
    expect(clientAddress(req({ "X-Forwarded-For": "10.1.1.1, 198.51.100.7" }), xff)).toBe("198.51.100.7");
    expect(clientAddress(req({ "X-Forwarded-For": "198.51.100.7", "CF-Connecting-IP": "203.0.113.9" }), xff)).toBe("198.51.100.7");
    expect(clientAddress(req({ "CF-Connecting-IP": "203.0.113.9" }), xff)).toBeNull();
  });

  it("accepts IPv4 and IPv6 literals (canonical case) and treats anything else as absent", () => {
    expect(clientAddress(req({ "CF-Connecting-IP": " 2001:DB8::1 " }), env)).toBe("2001:db8::1");
    expect(clientAddress(req({ "CF-Connecting-IP": "::ffff:192.0.2.1" }), env)).toBe("::ffff:192.0.2.1");
    for (const junk of ["unknown", "203.0.113.256", "1.2.3", "evil.example", "1::2::3", "<script>", "203.0.113.9, 10.0.0.1"]) {
      expect(clientAddress(req({ "CF-Connecting-IP": junk }), env), junk).toBeNull();
    }
  });

  it("CLIENT_ADDRESS_HEADER accepts only the two header names (npm start and the Worker refuse others)", async () => {
    const { checkVariables } = await import("../../src/config-variables");
    expect(checkVariables({ CLIENT_ADDRESS_HEADER: "X-Real-IP" }, false).problems.join()).toContain("CLIENT_ADDRESS_HEADER");
    expect(checkVariables({ CLIENT_ADDRESS_HEADER: "x-forwarded-for" }, false).problems).toEqual([]);
    expect(checkVariables({ CLIENT_ADDRESS_HEADER: "CF-Connecting-IP" }, false).problems).toEqual([]);
  });
});
