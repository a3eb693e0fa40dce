import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";

describe("GET /-/health answers 200 once the service serves", () => {
  it("returns 200 with GitLab's body", async () => {
    const res = await exports.default.fetch("http://localhost/-/health");
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("GitLab OK");
  });
});
