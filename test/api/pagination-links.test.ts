import { SELF } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { AccessLevel } from "../../src/domain/access";
import { makeUserWithToken } from "../helpers/fixtures";
import { addMemberTo, makeGroup, makeProject } from "../helpers/resources";

/**
 * GitLab's offset pagination Link header (API::Helpers::Pagination): each link is the request's
 * URL with `page` and `per_page` set, every other parameter kept in its place, and a token passed
 * in the query (`private_token`, `access_token`) never echoed into the header.
 */

let member: Awaited<ReturnType<typeof makeUserWithToken>>;

beforeAll(async () => {
  const owner = await makeUserWithToken();
  member = await makeUserWithToken();
  const group = await makeGroup(owner.user.id, { visibility: "private" });
  await addMemberTo("group", group.id, member.user.id, AccessLevel.DEVELOPER);
  for (let i = 0; i < 5; i++) await makeProject(owner.user.id, { groupId: group.id, groupPath: group.fullPath, visibility: "private" });
});

const links = (res: Response) => Object.fromEntries([...res.headers.get("Link")!.matchAll(/<([^>]+)>; rel="(\w+)"/g)].map(([, url, rel]) => [rel, url]));

describe("the Link header of an offset page", () => {
  it("keeps the request's parameters in place, sets page and per_page where they were, and drops a token passed in the query", async () => {
    const res = await SELF.fetch(`http://localhost/api/v4/projects?membership=true&page=2&order_by=id&per_page=2&private_token=${member.token}&sort=asc`);
    expect(res.status).toBe(200);
    const base = "http://localhost/api/v4/projects?membership=true&page=";
    expect(links(res)).toEqual({
      prev: `${base}1&order_by=id&per_page=2&sort=asc`,
      next: `${base}3&order_by=id&per_page=2&sort=asc`,
      first: `${base}1&order_by=id&per_page=2&sort=asc`,
      last: `${base}3&order_by=id&per_page=2&sort=asc`,
    });
  });

  it("appends page and per_page to a request that had neither, after its own parameters", async () => {
    const res = await SELF.fetch(`http://localhost/api/v4/projects?membership=true&access_token=${member.token}`);
    expect(res.status).toBe(200);
    expect(links(res)).toEqual({
      first: "http://localhost/api/v4/projects?membership=true&page=1&per_page=20",
      last: "http://localhost/api/v4/projects?membership=true&page=1&per_page=20",
    });
  });
});
