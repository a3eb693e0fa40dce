import { TEST_PASSWORD, call, makeUser } from "./fixtures";

/**
 * A minimal browser for page and OAuth tests in workerd: keeps cookies, sends the Origin a browser
 * sends on a same-origin form POST, follows nothing (tests look at each redirect), and reads CSRF
 * tokens out of the HTML it got. The fetcher is the Worker under test unless told otherwise (for
 * example `callerAt(version)` of ./versioned, to browse at another service version).
 */
export const ORIGIN = "http://localhost";

export type Fetcher = (path: string, init: RequestInit) => Promise<Response>;

export class Browser {
  cookies = new Map<string, string>();
  lastHtml = "";

  constructor(private readonly fetcher: Fetcher = call) {}

  private remember(res: Response) {
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(";");
      const i = pair.indexOf("=");
      const name = pair.slice(0, i).trim();
      const value = pair.slice(i + 1).trim();
      const expired = attrs.some((a) => /max-age=0\b/i.test(a.trim()) || /expires=Thu, 01 Jan 1970/i.test(a));
      if (expired || value === "") this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }

  /** Any request with the browser's cookies (unless init sets its own Cookie header). */
  async fetch(path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookies.size && !headers.has("Cookie")) headers.set("Cookie", this.cookieHeader());
    const res = await this.fetcher(path, { ...init, headers, redirect: "manual" });
    this.remember(res);
    if ((res.headers.get("content-type") ?? "").includes("text/html")) this.lastHtml = await res.clone().text();
    return res;
  }

  get(path: string, headers: Record<string, string> = {}): Promise<Response> {
    return this.fetch(path, { headers });
  }

  /**
   * Posts a form (a list value is sent as repeated fields) with the same-origin Origin header;
   * adds the CSRF token from the last page unless the fields carry one.
   */
  post(path: string, fields: Record<string, string | string[]>, opts: { origin?: string | null; csrf?: boolean } = {}): Promise<Response> {
    const body = new URLSearchParams();
    for (const [k, v] of Object.entries(fields)) for (const x of [v].flat()) body.append(k, x);
    if (opts.csrf !== false && !body.has("authenticity_token")) body.set("authenticity_token", this.csrf());
    const headers: Record<string, string> = { "Content-Type": "application/x-www-form-urlencoded" };
    const origin = opts.origin === undefined ? ORIGIN : opts.origin;
    if (origin !== null) headers.Origin = origin;
    return this.fetch(path, { method: "POST", body, headers });
  }

  /** The authenticity_token of the last HTML page. */
  csrf(): string {
    return csrfFrom(this.lastHtml);
  }

  /** Signs in through the sign-in form; returns the form's answer (303 on success). */
  async signIn(login: string, password: string, redirectTo?: string): Promise<Response> {
    await this.get(`/users/sign_in${redirectTo ? `?redirect_to=${encodeURIComponent(redirectTo)}` : ""}`);
    return this.post("/users/sign_in", { username: login, password, ...(redirectTo ? { redirect_to: redirectTo } : {}) });
  }
}

/** A fresh user, signed in through the sign-in form in a new browser. */
export async function signedInUser(browser = new Browser()) {
  const user = await makeUser();
  const res = await browser.signIn(user.username, TEST_PASSWORD, "/");
  if (res.status !== 303) throw new Error(`sign-in failed: ${res.status}`);
  return { user, browser };
}

/** The authenticity_token (CSRF token) of an HTML page. */
export function csrfFrom(html: string): string {
  const m = /name="authenticity_token" value="([^"]+)"/.exec(html);
  if (!m) throw new Error("no authenticity_token in page");
  return m[1];
}

/** Text of the HTML with tags removed, for assertions on what a person reads. */
export function textOf(html: string): string {
  return html.replace(/<[^>]+>/g, " ").replace(/&#39;/g, "'").replace(/&quot;/g, '"').replace(/&amp;/g, "&").replace(/\s+/g, " ");
}
