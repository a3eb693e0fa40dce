import { call } from "../helpers/fixtures";

/**
 * A minimal browser for page tests in workerd: keeps cookies, sends the Origin a browser sends on
 * a same-origin form POST, follows nothing (tests look at each redirect), and reads CSRF tokens
 * out of the HTML it got.
 */
export const ORIGIN = "http://localhost";

export class Browser {
  cookies = new Map<string, string>();
  lastHtml = "";

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

  async get(path: string, headers: Record<string, string> = {}): Promise<Response> {
    const res = await call(path, { headers: { Cookie: this.cookieHeader(), ...headers }, redirect: "manual" });
    this.remember(res);
    if ((res.headers.get("content-type") ?? "").includes("text/html")) this.lastHtml = await res.clone().text();
    return res;
  }

  /** Posts a form; adds the CSRF token from the last page unless the fields carry one. */
  async post(path: string, fields: Record<string, string>, opts: { origin?: string | null; csrf?: boolean } = {}): Promise<Response> {
    const body = new URLSearchParams(fields);
    if (opts.csrf !== false && !body.has("authenticity_token")) body.set("authenticity_token", this.csrf());
    const headers: Record<string, string> = { Cookie: this.cookieHeader(), "Content-Type": "application/x-www-form-urlencoded" };
    const origin = opts.origin === undefined ? ORIGIN : opts.origin;
    if (origin !== null) headers.Origin = origin;
    const res = await call(path, { method: "POST", body, headers, redirect: "manual" });
    this.remember(res);
    if ((res.headers.get("content-type") ?? "").includes("text/html")) this.lastHtml = await res.clone().text();
    return res;
  }

  /** The authenticity_token of the last HTML page. */
  csrf(): string {
    const m = /name="authenticity_token" value="([^"]*)"/.exec(this.lastHtml);
    if (!m) throw new Error("no CSRF token on the last page");
    return m[1];
  }

  async signIn(login: string, password: string, redirectTo?: string): Promise<Response> {
    await this.get(`/users/sign_in${redirectTo ? `?redirect_to=${encodeURIComponent(redirectTo)}` : ""}`);
    return this.post("/users/sign_in", { username: login, password, ...(redirectTo ? { redirect_to: redirectTo } : {}) });
  }
}

/** Text of the HTML with tags removed, for assertions on what a person reads. */
export function textOf(html: string): string {
  return html.replace(/<[^>]+>/g, " ").replace(/&#39;/g, "'").replace(/&quot;/g, '"').replace(/&amp;/g, "&").replace(/\s+/g, " ");
}
