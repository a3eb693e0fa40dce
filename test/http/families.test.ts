import { describe, expect, it } from "vitest";
import { rendererFor } from "../../src/app-errors";
import { familyOf } from "../../src/http/families";
import { renderOAuthError } from "../../src/oauth/errors";
import { renderPagesError } from "../../src/web/pages/index";
import { familyOf as sweepFamilyOf } from "../hardening/sweep-model";

/**
 * DESIGN.md "One front door": one table from path prefix to family drives the mounts, the top-level
 * error renderer and the hostile-input sweep, so the three cannot disagree (they did about
 * /oauth/device, the device flow's page for people).
 */
describe("the path-to-family table (src/http/families.ts)", () => {
  it.each([
    ["/api/v4/projects", "rest"],
    ["/api/graphql", "graphql"],
    ["/oauth/token", "oauth"],
    ["/oauth/authorize_device", "oauth"],
    ["/oauth/authorize", "authorize"],
    ["/oauth/device", "pages"],
    ["/oauth/device/decision", "pages"],
    ["/.well-known/openid-configuration", "oauth"],
    ["/v2/", "registry"],
    ["/jwt/auth", "registry"],
    ["/proto.Plugin/Call", "plugin"],
    ["/group/project.git/info/refs", "git"],
    ["/group/project.git/git-upload-pack", "git"],
    ["/users/sign_in", "pages"],
    ["/", "pages"],
  ])("%s belongs to %s", (path, family) => {
    expect(familyOf(path)).toBe(family);
  });

  it("the error renderer and the sweep follow the table: /oauth/device renders as a page, /oauth/token as OAuth", () => {
    expect(rendererFor("/oauth/device")).toBe(renderPagesError);
    expect(rendererFor("/oauth/device/decision")).toBe(renderPagesError);
    expect(rendererFor("/oauth/token")).toBe(renderOAuthError);
    expect(sweepFamilyOf("/oauth/device")).toBe("pages");
    expect(sweepFamilyOf("/oauth/authorize")).toBe("oauth");
  });
});
