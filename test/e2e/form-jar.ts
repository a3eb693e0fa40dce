/**
 * A cookie jar and form poster for e2e tests that drive the pages without a browser (the
 * sign-in and consent forms): test/e2e/restarts.test.ts, test/e2e/configuration.test.ts.
 */
export class Jar {
  cookies = new Map<string, string>();
  constructor(public base: string) {}
  async fetch(p: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookies.size) headers.set("Cookie", [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; "));
    const res = await fetch(`${this.base}${p}`, { ...init, headers, redirect: "manual" });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const i = pair.indexOf("=");
      const value = pair.slice(i + 1);
      if (value === "" || /max-age=0/i.test(line)) this.cookies.delete(pair.slice(0, i));
      else this.cookies.set(pair.slice(0, i), value);
    }
    return res;
  }
  post(p: string, fields: Record<string, string>): Promise<Response> {
    return this.fetch(p, { method: "POST", body: new URLSearchParams(fields), headers: { Origin: this.base, "Content-Type": "application/x-www-form-urlencoded" } });
  }
}
/** The hidden fields of a page's forms (the CSRF token, the consent parameters). */
export const hiddenFields = (html: string) =>
  Object.fromEntries([...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)].map((m) => [m[1], m[2].replace(/&amp;/g, "&").replace(/&quot;/g, '"')]));
