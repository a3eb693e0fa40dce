import { env } from "cloudflare:test";
import { getDb } from "../../src/db/client";
import { addMember as addMembership, createGroup, createProject } from "../../src/db/namespaces";
import type { GroupRow } from "../../src/db/projects";
import { call, makeUser, unique } from "../helpers/fixtures";

/**
 * Projects for the git gateway's tests, built through the projects area's repositories
 * (src/db/namespaces.ts). Groups are nested to check nested namespaces; their owner is a separate
 * user, so the users under test get exactly the access each test gives them.
 */
export async function makeGroupPath(depth = 2, ownerId?: number): Promise<GroupRow> {
  const db = getDb(env.DB);
  const owner = { id: ownerId ?? (await makeUser()).id };
  let parent: GroupRow | null = null;
  for (let i = 0; i < depth; i++) {
    const path = unique("grp");
    parent = await createGroup(db, { name: path, path, parent, visibility: "private", description: "", ownerId: owner.id });
  }
  return parent!;
}

export async function makeProject(opts: { visibility?: "private" | "internal" | "public"; depth?: number } = {}) {
  const owner = await makeUser();
  const group = await makeGroupPath(opts.depth ?? 2, owner.id);
  const path = unique("proj");
  const project = await createProject(getDb(env.DB), {
    name: path,
    path,
    namespace: { kind: "group", id: group.id, fullPath: group.fullPath },
    visibility: opts.visibility ?? "private",
    description: "",
    creatorId: owner.id,
  });
  return { project, group };
}

export async function addMember(sourceType: "group" | "project", sourceId: number, userId: number, accessLevel: number) {
  await addMembership(getDb(env.DB), sourceType, sourceId, userId, accessLevel, null);
}

export function basic(username: string, password: string): string {
  return `Basic ${btoa(`${username}:${password}`)}`;
}

/** A git client's request to the Worker under test. */
export function gitRequest(path: string, init: RequestInit & { auth?: string } = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  if (init.auth) headers.set("Authorization", init.auth);
  return call(path, { ...init, headers });
}

/** A pkt-line (git's framing): four hex digits of length, then the payload. */
export function pktLine(payload: string): string {
  return (payload.length + 4).toString(16).padStart(4, "0") + payload;
}

export { oauthToken } from "../helpers/password-grant";
