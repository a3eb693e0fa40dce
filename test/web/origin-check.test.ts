import { describe, expect, it } from "vitest";
import { Browser, ORIGIN } from "../helpers/browser";
import { TEST_PASSWORD, makeUser } from "../helpers/fixtures";

/**
 * docs/security.md, "CSRF": every unsafe request to a page passes the Origin / Sec-Fetch-Site check,
 * whatever its content type. A body that is not a form (JSON with the token in X-CSRF-Token, or no
 * body at all) from another origin is refused like a forged form.
 */
async function adminAndTarget() {
  const admin = await makeUser({ isAdmin: true });
  const target = await makeUser();
  const b = new Browser();
  expect((await b.signIn(admin.username, TEST_PASSWORD)).status).toBe(303);
  await b.get(`/admin/users/${target.username}`);
  return { b, target, token: b.csrf() };
}

const jsonPost = (b: Browser, path: string, token: string, headers: Record<string, string>) =>
  b.fetch(path, { method: "POST", body: "{}", headers: { "Content-Type": "application/json", "X-CSRF-Token": token, ...headers } });

describe("page requests: the Origin / Sec-Fetch-Site check holds for every unsafe method and content type", () => {
  it("a JSON POST with a valid X-CSRF-Token from a foreign Origin is refused (403) and blocks no one", async () => {
    const { b, target, token } = await adminAndTarget();
    const res = await jsonPost(b, `/admin/users/${target.username}/block`, token, { Origin: "https://evil.example" });
    expect(res.status).toBe(403);
    const page = await (await b.get(`/admin/users/${target.username}`)).text();
    expect(page).toContain(`/admin/users/${target.username}/block`);
  });

  it("Sec-Fetch-Site: cross-site without Origin is refused too, and so is a body of another type (text/xml)", async () => {
    const { b, target, token } = await adminAndTarget();
    expect((await jsonPost(b, `/admin/users/${target.username}/block`, token, { "Sec-Fetch-Site": "cross-site" })).status).toBe(403);
    const xml = await b.fetch(`/admin/users/${target.username}/block`, {
      method: "POST",
      body: "<x/>",
      headers: { "Content-Type": "text/xml", "X-CSRF-Token": token, Origin: "https://evil.example" },
    });
    expect(xml.status).toBe(403);
  });

  it("PUT, PATCH and DELETE to a page from a foreign Origin reach no route (no page serves them; a page route that did would pass the door's check): 404, and nothing changes", async () => {
    const { b, target, token } = await adminAndTarget();
    for (const method of ["PUT", "PATCH", "DELETE"]) {
      const res = await b.fetch(`/admin/users/${target.username}/block`, { method, headers: { "X-CSRF-Token": token, Origin: "https://evil.example" } });
      expect(res.status, method).toBe(404);
    }
    const page = await (await b.get(`/admin/users/${target.username}`)).text();
    expect(page).toContain(`/admin/users/${target.username}/block`);
  });

  it("the same JSON POST from the page's own origin with the token passes the check (the route answers)", async () => {
    const { b, target, token } = await adminAndTarget();
    const res = await jsonPost(b, `/admin/users/${target.username}/block`, token, { Origin: ORIGIN });
    expect(res.status).toBe(303);
  });
});
