import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { AccessLevel } from "../../src/domain/access";
import { createProjectRepository } from "../../src/git/provisioning";
import { call, makePat, makeUser } from "../helpers/fixtures";
import { addMember, makeProject } from "../git/fixtures";

/**
 * GitLab's keyset pagination of the repository tree (docs/rest-api.md, "Repository"):
 * `pagination=keyset` answers a page and a Link rel="next" whose `page_token` (Gitaly's cursor,
 * base64 of {"file_name": <the page's last path>}) starts the next page after that entry; no
 * X-Total; the last page has no next link. The tree is read from a real repository at the git origin.
 */

const NAMES = ["README.md", "a.txt", "b.txt", "c.txt", "d.txt", "e.txt", "f.txt"];

async function projectWithSevenFiles() {
  const { project } = await makeProject();
  const files = Object.fromEntries(NAMES.map((n) => [n, `${n}\n`]));
  expect(await createProjectRepository(env, project, { message: "Seven files", author: { name: "Ada", email: "ada@example.com" }, files })).toBeNull();
  const reader = await makeUser();
  await addMember("project", project.id, reader.id, AccessLevel.REPORTER);
  return { project, token: await makePat(reader.id, ["read_api"]) };
}

const tree = (id: number, q: string) => `/api/v4/projects/${id}/repository/tree?${q}`;

/** The URL of the Link header's rel="next", or null. */
function nextLink(res: Response): string | null {
  const m = /<([^>]+)>; rel="next"/.exec(res.headers.get("link") ?? "");
  return m ? m[1] : null;
}

describe("GitLab repository tree: keyset pagination (pagination=keyset, page_token, Link rel=next)", () => {
  it("walks the tree page by page through the Link header, in the offset listing's order, with no total", async () => {
    const { project, token } = await projectWithSevenFiles();
    const offset = (await (await call(tree(project.id, "per_page=100"), { token })).json()) as { path: string }[];
    expect(offset.map((e) => e.path)).toEqual(NAMES);

    const seen: string[][] = [];
    let url: string | null = `http://localhost${tree(project.id, "pagination=keyset&per_page=3")}`;
    while (url) {
      const res = await call(new URL(url).pathname + new URL(url).search, { token });
      expect(res.status).toBe(200);
      expect(res.headers.get("x-total")).toBeNull();
      expect(res.headers.get("x-total-pages")).toBeNull();
      expect(res.headers.get("x-per-page")).toBe("3");
      const page = (await res.json()) as { path: string }[];
      seen.push(page.map((e) => e.path));
      url = nextLink(res);
      if (url) {
        const u = new URL(url);
        expect(u.searchParams.get("pagination")).toBe("keyset");
        // Gitaly's cursor: base64 of {"file_name": <the page's last entry>}.
        expect(JSON.parse(atob(u.searchParams.get("page_token")!))).toEqual({ file_name: page[page.length - 1].path });
      }
      expect(seen.length).toBeLessThanOrEqual(3);
    }
    expect(seen).toEqual([NAMES.slice(0, 3), NAMES.slice(3, 6), NAMES.slice(6)]);
  });

  it("a full last page has no next link (the origin knows nothing follows)", async () => {
    const { project, token } = await projectWithSevenFiles();
    const token6 = btoa(JSON.stringify({ file_name: "d.txt" }));
    const res = await call(tree(project.id, `pagination=keyset&per_page=3&page_token=${encodeURIComponent(token6)}`), { token });
    expect(((await res.json()) as { path: string }[]).map((e) => e.path)).toEqual(["e.txt", "f.txt"]);
    expect(nextLink(res)).toBeNull();
    const exact = await call(tree(project.id, `pagination=keyset&per_page=4&page_token=${encodeURIComponent(btoa(JSON.stringify({ file_name: "b.txt" })))}`), { token });
    expect(((await exact.json()) as { path: string }[]).map((e) => e.path)).toEqual(["c.txt", "d.txt", "e.txt", "f.txt"]);
    expect(nextLink(exact)).toBeNull();
  });

  it("refuses a page_token that is not a token or names no entry of the tree (400 page_token is invalid)", async () => {
    const { project, token } = await projectWithSevenFiles();
    for (const bad of ["not-base64!", btoa("[]"), btoa(JSON.stringify({ file_name: "" })), btoa(JSON.stringify({ file_name: "missing.txt" }))]) {
      const res = await call(tree(project.id, `pagination=keyset&page_token=${encodeURIComponent(bad)}`), { token });
      expect(res.status, bad).toBe(400);
      expect(await res.json()).toEqual({ error: "page_token is invalid" });
    }
  });

  it("offset pagination ignores page_token, as GitLab reads it only with keyset", async () => {
    const { project, token } = await projectWithSevenFiles();
    const res = await call(tree(project.id, `per_page=3&page_token=${encodeURIComponent(btoa(JSON.stringify({ file_name: "c.txt" })))}`), { token });
    expect(res.headers.get("x-total")).toBe("7");
    expect(((await res.json()) as { path: string }[]).map((e) => e.path)).toEqual(NAMES.slice(0, 3));
  });
});
