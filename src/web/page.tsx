import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { html } from "hono/html";
import type { Child } from "hono/jsx";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { AuditActor } from "../db/audit";
import type { UserRow } from "../db/users";
import { clientAddress } from "../http/client-address";
import type { AppEnv, Bindings, Variables } from "../env";
import { Layout } from "./layout";
import { csrfToken, currentUser } from "./session";

type Ctx = Context<any>;

/** Env of page sub-apps: a signed-in door (src/web/door.ts) puts the signed-in user in c.var.user. */
export type PageEnv = { Bindings: Bindings; Variables: Variables & { user: UserRow } };

/** Env of a page open to visitors (the `visitor` door): the signed-in user, or null for an anonymous visitor. */
export type VisitorEnv = { Bindings: Bindings; Variables: Variables & { user: UserRow | null } };

/** Renders a page in the layout, with the navigation bar when someone is signed in. */
export async function renderPage(c: Ctx, title: string, body: Child, status: ContentfulStatusCode = 200): Promise<Response> {
  // A 500 page is drawn without the session lookup: the failure it reports may be the store's.
  const user = status >= 500 ? null : await currentUser(c);
  const token = user ? await csrfToken(c) : undefined;
  // The doctype keeps browsers in standards mode; JSX cannot express it.
  return c.html(
    html`<!DOCTYPE html>${(
      <Layout title={title} user={user ? { username: user.username, isAdmin: user.isAdmin } : null} csrfToken={token}>
        {body}
      </Layout>
    )}`,
    status,
  );
}

/** The hidden field every form carries (GitLab's name for it). */
export function CsrfField({ token }: { token: string }) {
  return <input type="hidden" name="authenticity_token" value={token} />;
}

export function Flash({ kind, message }: { kind: "error" | "notice" | "warning"; message?: string | null }) {
  if (!message) return null;
  return (
    <div class={`flash ${kind}`} role={kind === "error" ? "alert" : "status"}>
      {message}
    </div>
  );
}

/** The acting principal of a page request (a session has no Sudo): what src/services audit. */
export function sessionActor(c: Context<PageEnv>): AuditActor {
  return { id: c.var.user.id, ip: clientAddress(c.req.raw, c.env) };
}

/**
 * A one-shot notice carried across a redirect (POST, then redirect, then GET). Never a secret:
 * secrets shown once are rendered in the POST's own response.
 */
const FLASH_COOKIE = "_edge_auth_flash";

export function setFlash(c: Ctx, message: string): void {
  setCookie(c, FLASH_COOKIE, encodeURIComponent(message.slice(0, 300)), {
    path: "/",
    httpOnly: true,
    sameSite: "Lax",
    secure: new URL(c.req.url).protocol === "https:",
    maxAge: 60,
  });
}

export function takeFlash(c: Ctx): string | null {
  const v = getCookie(c, FLASH_COOKIE);
  if (!v) return null;
  deleteCookie(c, FLASH_COOKIE, { path: "/" });
  try {
    return decodeURIComponent(v);
  } catch {
    return null;
  }
}

export function formatDate(ms: number | null): string {
  if (ms === null) return "Never";
  return new Date(ms).toISOString().replace("T", " ").slice(0, 16) + " UTC";
}
