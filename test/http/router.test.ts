import { describe, expect, it } from "vitest";
import { RegExpRouter } from "hono/router/reg-exp-router";
import app from "../../src/app";
import { routingPath } from "../../src/http/router";

/**
 * docs/architecture.md "Routing": the app routes with Hono's RegExpRouter (one regular expression
 * for every route) and never falls back to the TrieRouter, which a regex-constrained pattern
 * (`:id{[0-9]+}`, a multi-segment `:project{...}`) beside other routes would force.
 */
describe("the app's router is RegExpRouter", () => {
  it("every route of the app is taken by RegExpRouter (a constrained pattern would be refused)", () => {
    expect(app.router.name).toBe("RegExpRouter");
    // The same routes, added to a bare RegExpRouter, all fit: this is what fails when a route is
    // added that RegExpRouter cannot hold (UnsupportedPathError).
    const bare = new RegExpRouter<number>();
    for (const [i, r] of app.routes.entries()) bare.add(r.method, r.path, i);
    expect(() => bare.match("GET", "/")).not.toThrow();
    for (const r of app.routes) expect(r.path).not.toMatch(/:[A-Za-z_]+\{/);
  });

  it("a regex-constrained pattern beside the app's routes is refused, so the check above can fail", () => {
    const bare = new RegExpRouter<number>();
    for (const [i, r] of app.routes.entries()) bare.add(r.method, r.path, i);
    expect(() => bare.add("GET", "/:project{[a-z]+/[a-z]+}", -1)).toThrow();
  });
});

describe("routing paths: a multi-segment project path is one parameter (src/http/router.ts)", () => {
  it.each([
    ["/group/sub/proj", "/-/project/group%2Fsub%2Fproj"],
    ["/group/proj/-/settings/repository", "/-/project/group%2Fproj/-/settings/repository"],
    ["/group/proj/container_registry/3/delete", "/-/project/group%2Fproj/container_registry/3/delete"],
    ["/group/sub/proj.git/info/refs", "/-/git/group%2Fsub%2Fproj.git/info/refs"],
    ["/group/proj/git-upload-pack", "/-/git/group%2Fproj/git-upload-pack"],
    // Reserved top-level paths are routed as they are.
    ["/api/v4/projects/group%2Fproj", "/api/v4/projects/group%2Fproj"],
    ["/users/sign_in", "/users/sign_in"],
    ["/explore/projects", "/explore/projects"],
    ["/help", "/help"],
    ["/", "/"],
    // Any other one-segment path is a user's profile (GitLab's /<username>).
    ["/group", "/-/user/group"],
    ["/root", "/-/user/root"],
    ["/-/user/root", "/-/unrouted/-/user/root"],
    // Segments GitLab never gives a project path, and the router's own prefixes, reach no project route.
    ["/group/.hidden", "/group/.hidden"],
    ["/-/project/a%2Fb", "/-/unrouted/-/project/a%2Fb"],
    ["/-/git/a%2Fb.git/info/refs", "/-/unrouted/-/git/a%2Fb.git/info/refs"],
  ])("%s is routed as %s", (path, routed) => {
    expect(routingPath(path)).toBe(routed);
  });

  it("a project page receives the project path decoded once", async () => {
    const [handlers, stash] = app.router.match("GET", "/group/sub/proj");
    const projectRoute = handlers.find(([, params]) => "project" in params);
    expect(projectRoute).toBeDefined();
    const index = (projectRoute![1] as Record<string, number>).project;
    expect(decodeURIComponent((stash as string[])[index])).toBe("group/sub/proj");
  });
});
