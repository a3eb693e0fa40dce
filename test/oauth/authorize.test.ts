import { describe, expect, it } from "vitest";
import { SCOPES } from "../../src/domain/scopes";
import { Browser, csrfFrom, signedInUser } from "../helpers/browser";
import { REDIRECT, authorizeUrl, call, decide, makeApp, pkce } from "./helpers";

const ISS = "http://localhost";
/** Redirects are answers to check, not to follow. */
const get = (path: string) => call(path, { redirect: "manual" });

function expectErrorPage(res: Response) {
  expect(res.status).toBe(400);
  expect(res.headers.get("location")).toBeNull();
  expect(res.headers.get("content-type")).toContain("text/html");
}

function redirectParams(res: Response, status = 302) {
  expect(res.status).toBe(status);
  const loc = new URL(res.headers.get("location")!);
  expect(`${loc.origin}${loc.pathname}`).toBe(REDIRECT);
  return loc.searchParams;
}

describe("GET /oauth/authorize: errors before the client and redirect_uri are validated are shown, never redirected (DESIGN convention 5)", () => {
  it("unknown or missing client_id renders the HTML error page", async () => {
    const { browser } = await signedInUser();
    expectErrorPage(await browser.fetch(authorizeUrl({ client_id: "nope", redirect_uri: REDIRECT, response_type: "code" })));
    expectErrorPage(await browser.fetch(authorizeUrl({ redirect_uri: REDIRECT, response_type: "code" })));
  });

  it("an unregistered or missing redirect_uri renders the HTML error page", async () => {
    const { app } = await makeApp();
    const { browser } = await signedInUser();
    for (const redirect_uri of ["https://evil.example/callback", `${REDIRECT}/extra`, `${REDIRECT}?x=1`, undefined]) {
      const res = await browser.fetch(authorizeUrl({ client_id: app.uid, redirect_uri, response_type: "code", state: "s" }));
      expectErrorPage(res);
      expect(await res.text()).toContain("invalid_redirect_uri");
    }
  });

  it("DESIGN Redirect URIs: http: only for loopback hosts; the loopback port may vary (RFC 8252 §7.3)", async () => {
    const insecure = await makeApp({ redirectUri: "http://client.example/cb" });
    const loopback = await makeApp({ redirectUri: "http://127.0.0.1:1234/cb" });
    const { browser } = await signedInUser();
    expectErrorPage(await browser.fetch(authorizeUrl({ client_id: insecure.app.uid, redirect_uri: "http://client.example/cb", response_type: "code" })));
    const ok = await browser.fetch(authorizeUrl({ client_id: loopback.app.uid, redirect_uri: "http://127.0.0.1:5555/cb", response_type: "code" }));
    expect(ok.status).toBe(200);
    expectErrorPage(await browser.fetch(authorizeUrl({ client_id: loopback.app.uid, redirect_uri: "http://127.0.0.1:5555/other", response_type: "code" })));
  });
});

describe("GET /oauth/authorize: other errors redirect with error, error_description, state and iss (DESIGN; RFC 9207)", () => {
  it("missing response_type is invalid_request", async () => {
    const { app } = await makeApp();
    const q = redirectParams(await get(authorizeUrl({ client_id: app.uid, redirect_uri: REDIRECT, state: "xyz" })));
    expect(q.get("error")).toBe("invalid_request");
    expect(q.get("error_description")).toBe("Missing required parameter: response_type.");
    expect(q.get("state")).toBe("xyz");
    expect(q.get("iss")).toBe(ISS);
  });

  it("an unknown response_type is unsupported_response_type", async () => {
    const { app } = await makeApp();
    const q = redirectParams(await get(authorizeUrl({ client_id: app.uid, redirect_uri: REDIRECT, response_type: "id_token", state: "s" })));
    expect(q.get("error")).toBe("unsupported_response_type");
  });

  it("spec Application scopes: a scope outside the application's registered scopes (or unknown) is invalid_scope", async () => {
    const { app } = await makeApp({ scopes: ["read_user"] });
    for (const scope of ["api", "read_user api", "nonsense"]) {
      const q = redirectParams(await get(authorizeUrl({ client_id: app.uid, redirect_uri: REDIRECT, response_type: "code", scope, state: "s" })));
      expect(q.get("error")).toBe("invalid_scope");
      expect(q.get("state")).toBe("s");
    }
  });

  it("DESIGN PKCE: S256 only; a public application must use PKCE", async () => {
    const confidential = await makeApp();
    const pub = await makeApp({ confidential: false });
    const { challenge } = await pkce();
    const plain = redirectParams(
      await get(authorizeUrl({ client_id: confidential.app.uid, redirect_uri: REDIRECT, response_type: "code", code_challenge: challenge, code_challenge_method: "plain" })),
    );
    expect(plain.get("error")).toBe("invalid_request");
    const noMethod = redirectParams(await get(authorizeUrl({ client_id: confidential.app.uid, redirect_uri: REDIRECT, response_type: "code", code_challenge: challenge })));
    expect(noMethod.get("error")).toBe("invalid_request");
    const publicNoPkce = redirectParams(await get(authorizeUrl({ client_id: pub.app.uid, redirect_uri: REDIRECT, response_type: "code" })));
    expect(publicNoPkce.get("error")).toBe("invalid_request");
    expect(publicNoPkce.get("error_description")).toBe("Missing required parameter: code_challenge.");
  });
});

describe("GET /oauth/authorize: sign-in and consent (spec GET /oauth/authorize)", () => {
  it("without a session it sends the browser to the sign-in page and back", async () => {
    const { app } = await makeApp();
    const { user } = await signedInUser();
    const browser = new Browser();
    const url = authorizeUrl({ client_id: app.uid, redirect_uri: REDIRECT, response_type: "code", scope: "api", state: "st" });
    const res = await browser.fetch(url);
    expect(res.status).toBe(302);
    const loc = res.headers.get("location")!;
    // The request waits server-side; the sign-in redirect names it by id (issue 8 item 12).
    expect(loc).toMatch(/^\/users\/sign_in\?redirect_to=%2Foauth%2Fauthorize%3Fpending%3D[A-Za-z0-9_-]{22}$/);
    const page = await browser.fetch(loc);
    const redirectTo = new URL(loc, "http://localhost").searchParams.get("redirect_to")!;
    const signedIn = await browser.post("/users/sign_in", {
      authenticity_token: csrfFrom(await page.text()),
      username: user.username,
      password: "correct horse battery staple",
      redirect_to: redirectTo,
    });
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.get("location")).toBe(redirectTo);
    const consent = await browser.fetch(redirectTo);
    expect(consent.status).toBe(200);
    expect(await consent.text()).toContain('name="state" value="st"');
  });

  it("the consent page names the application, the user and each scope with its description; Authorize and Deny; never framed", async () => {
    const { app } = await makeApp({ scopes: ["api", "read_user"] });
    const { user, browser } = await signedInUser();
    const res = await browser.fetch(authorizeUrl({ client_id: app.uid, redirect_uri: REDIRECT, response_type: "code", state: "s" }));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
    const html = await res.text();
    expect(html).toContain(app.name);
    expect(html).toContain(user.username);
    // Absent scope: the application's registered scopes.
    for (const s of ["api", "read_user"] as const) expect(html).toContain(SCOPES[s].replace(/'/g, "&#39;"));
    expect(html).toMatch(/<button[^>]*>\s*Authorize\s*<\/button>/);
    expect(html).toMatch(/<button[^>]*>\s*Deny\s*<\/button>/);
    expect(html).toContain('method="post"');
  });

  it("approval redirects with 303, code, state and iss (RFC 9207)", async () => {
    const { app } = await makeApp();
    const { browser } = await signedInUser();
    const q = redirectParams(await decide(browser, { client_id: app.uid, redirect_uri: REDIRECT, response_type: "code", state: "abc" }), 303);
    expect(q.get("code")).toBeTruthy();
    expect(q.get("state")).toBe("abc");
    expect(q.get("iss")).toBe(ISS);
  });

  it("denial redirects with 303 and error=access_denied, state and iss", async () => {
    const { app } = await makeApp();
    const { browser } = await signedInUser();
    const q = redirectParams(await decide(browser, { client_id: app.uid, redirect_uri: REDIRECT, response_type: "code", state: "abc" }, "deny"), 303);
    expect(q.get("error")).toBe("access_denied");
    expect(q.get("state")).toBe("abc");
    expect(q.get("iss")).toBe(ISS);
    expect(q.get("code")).toBeNull();
  });

  it("the decision POST needs the CSRF token (403 without, no code)", async () => {
    const { app } = await makeApp();
    const { browser } = await signedInUser();
    const res = await browser.post("/oauth/authorize", { client_id: app.uid, redirect_uri: REDIRECT, response_type: "code", decision: "approve", authenticity_token: "forged" });
    expect(res.status).toBe(403);
    expect(res.headers.get("location")).toBeNull();
  });

  it("the decision POST re-validates what it echoes: a swapped redirect_uri is shown as an error, never followed", async () => {
    const { app } = await makeApp();
    const { browser } = await signedInUser();
    const page = await browser.fetch(authorizeUrl({ client_id: app.uid, redirect_uri: REDIRECT, response_type: "code" }));
    const res = await browser.post("/oauth/authorize", {
      authenticity_token: csrfFrom(await page.text()),
      client_id: app.uid,
      redirect_uri: "https://evil.example/cb",
      response_type: "code",
      decision: "approve",
    });
    expectErrorPage(res);
  });

  it("trusted applications skip the consent page (GitLab)", async () => {
    const { app } = await makeApp({ trusted: true });
    const { browser } = await signedInUser();
    const q = redirectParams(await browser.fetch(authorizeUrl({ client_id: app.uid, redirect_uri: REDIRECT, response_type: "code", state: "t" })), 302);
    expect(q.get("code")).toBeTruthy();
    expect(q.get("iss")).toBe(ISS);
  });
});


describe("pending authorization requests are kept server-side; state is capped", () => {
  it("an authorize URL far over 2 KB (a 2048-character state) survives sign-in and reaches the client with its state", async () => {
    const { app } = await makeApp({ confidential: true });
    const { user } = await signedInUser();
    const state = "s".repeat(2048);
    const browser = new Browser();
    const res = await browser.fetch(authorizeUrl({ client_id: app.uid, redirect_uri: REDIRECT, response_type: "code", scope: "api read_user", state, padding: "p".repeat(3000) }));
    expect(res.status).toBe(302);
    const loc = res.headers.get("location")!;
    expect(loc.length).toBeLessThan(120);
    const signedIn = await browser.signIn(user.username, "correct horse battery staple", new URL(loc, "http://localhost").searchParams.get("redirect_to")!);
    expect(signedIn.status).toBe(303);
    const back = await decide(browser, Object.fromEntries(new URL(signedIn.headers.get("location")!, "http://localhost").searchParams));
    // decide() re-opens the pending URL and presses Authorize.
    const final = new URL(back.headers.get("location")!);
    expect(final.searchParams.get("state")).toBe(state);
    expect(final.searchParams.get("code")).toBeTruthy();
  });

  it("an unknown or malformed pending id renders the HTML error page (never a redirect)", async () => {
    const { browser } = await signedInUser();
    for (const id of ["AAAAAAAAAAAAAAAAAAAAAA", "x"]) expectErrorPage(await browser.fetch(`/oauth/authorize?pending=${id}`));
  });

  it("state longer than 2048 characters is invalid_request, and the oversized state is not echoed", async () => {
    const { app } = await makeApp();
    const q = redirectParams(await get(authorizeUrl({ client_id: app.uid, redirect_uri: REDIRECT, response_type: "code", state: "s".repeat(2049) })));
    expect(q.get("error")).toBe("invalid_request");
    expect(q.get("error_description")).toContain("2048");
    expect(q.get("state")).toBeNull();
    expect(q.get("iss")).toBe(ISS);
  });
});

describe("RFC 6749 §3.1: parameters MUST NOT be included more than once", () => {
  it("a repeated client_id or redirect_uri renders the error page: which one was meant is unknowable", async () => {
    const { app } = await makeApp();
    const other = await makeApp();
    const { browser } = await signedInUser();
    const twice = (name: "client_id" | "redirect_uri", second: string) => {
      const params = new URLSearchParams({ client_id: app.uid, redirect_uri: REDIRECT, response_type: "code" });
      params.append(name, second);
      return `/oauth/authorize?${params}`;
    };
    const res1 = await browser.fetch(twice("client_id", other.app.uid));
    expectErrorPage(res1);
    expect(await res1.text()).toContain("client_id more than once");
    const res2 = await browser.fetch(twice("redirect_uri", "https://evil.example/cb"));
    expectErrorPage(res2);
    expect(await res2.text()).toContain("redirect_uri more than once");
  });

  it("any other repeated parameter redirects invalid_request to the validated redirect_uri (a repeated state is not echoed)", async () => {
    const { app } = await makeApp();
    for (const [name, values] of [["scope", ["api", "read_user"]], ["response_type", ["code", "code"]], ["state", ["a", "b"]]] as const) {
      const params = new URLSearchParams({ client_id: app.uid, redirect_uri: REDIRECT, response_type: "code", state: "keep" });
      params.delete(name);
      for (const v of values) params.append(name, v);
      const q = redirectParams(await get(`/oauth/authorize?${params}`));
      expect(q.get("error")).toBe("invalid_request");
      expect(q.get("error_description")).toBe(`The request includes the parameter ${name} more than once.`);
      expect(q.get("state")).toBe(name === "state" ? null : "keep");
    }
  });

  it("the consent POST refuses a repeated field too", async () => {
    const { app } = await makeApp({ confidential: true });
    const { browser } = await signedInUser();
    const page = await browser.fetch(authorizeUrl({ client_id: app.uid, redirect_uri: REDIRECT, response_type: "code", state: "s" }));
    expect(page.status).toBe(200);
    const res = await browser.post("/oauth/authorize", { client_id: app.uid, redirect_uri: REDIRECT, response_type: "code", state: "s", scope: ["api", "read_user"], decision: "approve" });
    const q = redirectParams(res, 303);
    expect(q.get("error")).toBe("invalid_request");
    expect(q.get("code")).toBeNull();
  });
});
