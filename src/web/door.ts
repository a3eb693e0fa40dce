import { Hono, type Context, type Env, type MiddlewareHandler } from "hono";
import type { Child } from "hono/jsx";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { createMiddleware } from "hono/factory";
import { passwordExpired } from "../services/accounts/password-expiry";
import { renderPage, type PageEnv, type VisitorEnv } from "./page";
import { pageRefusal } from "./refusal";
import { notFoundPage } from "./pages/not-found";
import { pageSecurityHeaders, requireCsrf } from "./security";
import { csrfToken, currentSession, currentSessionSid, currentUser, endSession, sessionAuthTime, signOutBrowser } from "./session";

/**
 * The page door (docs/architecture.md, "Where each rule lives"): what every page route passes
 * before its handler runs, declared once per page sub-app the way an API family declares its front
 * door. Each route of a sub-app made by `pageApp(door)` carries, in this order:
 *   1. the pages' security headers (CSP, framing, nosniff, no-store; `pageSecurityHeaders`),
 *   2. on every unsafe method (anything but GET, HEAD, OPTIONS) the Origin / Sec-Fetch-Site check
 *      and the session-bound CSRF token (`requireCsrf`), whoever the visitor is,
 *   3. who may enter: `anyone`; `visitor` (anyone, with the signed-in user or null on c.var.user,
 *      for a page of a resource that may be public: a refusal sends an anonymous visitor to sign in,
 *      `renderPagesError`); `signed-in` (a visitor goes to sign in and comes back to the path,
 *      as GitLab redirects; a password an administrator set is replaced first); `administrator`
 *      (as signed-in, and a signed-in user who is not an administrator gets "Page not found", so
 *      the admin area is not revealed).
 * The door is part of each route's own handler chain, never a path list, so a page cannot be
 * added without one, and `test/web/page-door-sweep.test.ts` checks every page route of the app.
 */
export type PageDoor = {
  enter: "anyone" | "visitor" | "signed-in" | "administrator";
  /**
   * CSP form-action: false for a page whose form ends in a redirect to another site (the consent
   * page), because Chromium applies form-action to the redirect too.
   */
  formAction?: boolean;
  /**
   * Unsafe methods without the CSRF and Origin check: only for an endpoint another site sends the
   * browser to by a form POST on purpose (RP-Initiated Logout's end-session endpoint, §2). What it
   * does must not act on the session without asking unless the request proves itself.
   */
  crossSiteForm?: boolean;
};

/** Where the door's guard keeps its declaration, for the sweep over `app.routes`. */
const DECLARED = Symbol("page door");
type GuardHandler = MiddlewareHandler & { [DECLARED]?: PageDoor };

/** GitLab's sign-in redirect: the path (and, for a GET, its query) comes back after sign-in. */
export function signInFirst(c: Parameters<MiddlewareHandler>[0]): Response {
  const url = new URL(c.req.url);
  const back = c.req.method === "GET" ? `${url.pathname}${url.search}` : url.pathname;
  return c.redirect(`/users/sign_in?redirect_to=${encodeURIComponent(back)}`, 302);
}

/** Signed-in users only; puts the user on c.var.user (PageEnv). */
const signedIn = createMiddleware<PageEnv>(async (c, next) => {
  const user = await currentUser(c);
  if (!user) return signInFirst(c);
  // GitLab's check_password_expiration: a password an administrator set must be replaced first.
  if (passwordExpired(user) && !new URL(c.req.url).pathname.startsWith("/profile/password/new")) {
    const url = new URL(c.req.url);
    const back = c.req.method === "GET" ? `${url.pathname}${url.search}` : "/";
    return c.redirect(`/profile/password/new?redirect_to=${encodeURIComponent(back)}`, 302);
  }
  c.set("user", user);
  await next();
});

/** Anyone; a signed-in user is held to signedIn's rules (a password to replace first), an anonymous visitor is null. */
const visitor = createMiddleware<VisitorEnv>(async (c, next) => {
  if (await currentUser(c)) return signedIn(c as never, next);
  c.set("user", null);
  await next();
});

const administrator = createMiddleware<PageEnv>(async (c, next) => {
  let notAdmin: Response | undefined;
  const refused = await signedIn(c, async () => {
    if (c.var.user.isAdmin) await next();
    else notAdmin = await notFoundPage(c);
  });
  return refused ?? notAdmin;
});

function guardOf(door: PageDoor): GuardHandler {
  const who = { anyone: null, visitor, "signed-in": signedIn, administrator }[door.enter];
  const guard: GuardHandler = async (c, next) => {
    // CSRF first (it throws its refusal), then who: a redirect to sign in is this handler's answer.
    let answer: Response | void = undefined;
    const enter = async () => {
      answer = who ? await who(c as never, next) : await next();
    };
    if (door.crossSiteForm) await enter();
    else await requireCsrf(c, enter);
    return answer;
  };
  guard[DECLARED] = door;
  return guard;
}

const ROUTE_METHODS = ["get", "post", "put", "delete", "patch", "options", "all"] as const;

/**
 * A page sub-app behind `door`: every route it registers (get, post, ..., all, on) runs the door's
 * handlers first. `use` is not guarded (it registers middleware, which would run before the door).
 */
export function pageApp<E extends Env = PageEnv>(door: PageDoor): Hono<E> {
  const app = new Hono<E>();
  const doorHandlers: MiddlewareHandler[] = [pageSecurityHeaders({ formAction: door.formAction }), guardOf(door)];
  const target = app as unknown as Record<string, (...args: unknown[]) => unknown>;
  for (const m of ROUTE_METHODS) {
    const register = target[m];
    // app.get(path, ...handlers), or app.get(...handlers) on the path registered last.
    target[m] = (first: unknown, ...rest: unknown[]) => (typeof first === "string" ? register(first, ...doorHandlers, ...rest) : register(...doorHandlers, first, ...rest));
  }
  const on = target.on;
  target.on = (method: unknown, path: unknown, ...handlers: unknown[]) => on(method, path, ...doorHandlers, ...handlers);
  return app;
}

/**
 * The door a route handler declares, or undefined (Hono wraps a sub-app's handlers when the
 * sub-app has its own error renderer; the original is kept under `__COMPOSED_HANDLER`).
 */
export function declaredDoor(handler: unknown): PageDoor | undefined {
  let h = handler as (GuardHandler & { __COMPOSED_HANDLER?: unknown }) | undefined;
  while (h) {
    if (h[DECLARED]) return h[DECLARED];
    h = h.__COMPOSED_HANDLER as typeof h;
  }
  return undefined;
}

/**
 * What a page behind a door uses of the visit, for the pages that live with their protocol rather
 * than in src/web (the authorization endpoint and the device verification page of src/oauth): the
 * signed-in user, the form token, the session's sign-in time, signing out, the page layout, and the
 * sentence a refusal shows. Pages under src/web call the same functions directly.
 */
export function pageVisit(c: Context) {
  return {
    user: () => currentUser(c),
    csrfToken: () => csrfToken(c),
    authTime: () => sessionAuthTime(c),
    endSession: () => endSession(c),
    /** The signed-in session (row and user) and its OpenID Connect sid (docs/oidc.md, "Signing out"). */
    session: () => currentSession(c),
    sid: () => currentSessionSid(c),
    /** Signs out on purpose: the session's end as a change, back-channel logouts sent after the response. */
    signOut: (reason: "sign_out" | "rp_initiated_logout") => signOutBrowser(c, reason),
    render: (title: string, body: Child, status?: ContentfulStatusCode) => renderPage(c, title, body, status),
    refusal: (err: Error) => pageRefusal(err, c),
  };
}

/** The form and notice elements of every page, for the same pages (the form's hidden CSRF field is the door's). */
export { CsrfField, Flash, type PageEnv } from "./page";
