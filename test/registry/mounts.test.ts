import { describe, expect, it } from "vitest";
import { makePat, makeUser } from "../helpers/fixtures";
import { addMemberTo, makeGroup, makeProject } from "../helpers/resources";
import { basicAuth, bytesOf, pushBlob, registryCall, registryToken } from "./helpers";

/**
 * OCI distribution spec v1.1.1, "Mounting a blob from another repository" (end-11) with the Docker
 * token protocol: the 401 challenge of a mount names the target's pull,push and the source's pull
 * (as distribution and GitLab's registry do), so one token from an ordinary login covers the mount.
 */
async function projectOf(owner: { id: number }) {
  const group = await makeGroup(owner.id, { visibility: "private" });
  const project = await makeProject(owner.id, { groupId: group.id, groupPath: group.fullPath, visibility: "private" });
  return { project, name: project.pathWithNamespace.toLowerCase() };
}

/** The scopes of a Bearer challenge, as a client reads them (one scope parameter, space-separated). */
const challengeScopes = (res: Response) => /scope="([^"]*)"/.exec(res.headers.get("WWW-Authenticate") ?? "")?.[1].split(" ") ?? [];

describe("cross-repository mount with a token from an ordinary login", () => {
  it("the challenge names repository:<name>:pull,push and repository:<from>:pull; the token for them mounts (201)", async () => {
    const owner = await makeUser();
    const source = await projectOf(owner);
    const target = await projectOf(owner);
    const dev = await makeUser();
    await addMemberTo("project", source.project.id, dev.id, 20); // reporter: may pull the source
    await addMemberTo("project", target.project.id, dev.id, 30); // developer: may push the target
    const auth = basicAuth(dev.username, await makePat(dev.id, ["write_registry"]));
    const ownerAuth = basicAuth(owner.username, await makePat(owner.id, ["write_registry"]));
    const digest = await pushBlob(source.name, await registryToken([`repository:${source.name}:pull,push`], ownerAuth), bytesOf("a shared base layer"));

    const mountPath = `/v2/${target.name}/blobs/uploads/?mount=${digest}&from=${source.name}`;
    const challenged = await registryCall(mountPath, { method: "POST" });
    expect(challenged.status).toBe(401);
    expect(challengeScopes(challenged)).toEqual([`repository:${target.name}:pull,push`, `repository:${source.name}:pull`]);

    const token = await registryToken(challengeScopes(challenged), auth);
    const mounted = await registryCall(mountPath, { method: "POST", bearer: token });
    expect(mounted.status).toBe(201);
    expect(mounted.headers.get("Location")).toBe(`/v2/${target.name}/blobs/${digest}`);
    expect(mounted.headers.get("Docker-Content-Digest")).toBe(digest);
    const head = await registryCall(`/v2/${target.name}/blobs/${digest}`, { method: "HEAD", bearer: token });
    expect(head.status).toBe(200);
  });

  it("a caller who may not pull the source gets a token without it, and the mount falls back to an upload (202)", async () => {
    const owner = await makeUser();
    const source = await projectOf(owner);
    const target = await projectOf(owner);
    const dev = await makeUser();
    await addMemberTo("project", target.project.id, dev.id, 30);
    const ownerAuth = basicAuth(owner.username, await makePat(owner.id, ["write_registry"]));
    const digest = await pushBlob(source.name, await registryToken([`repository:${source.name}:pull,push`], ownerAuth), bytesOf("a private layer"));

    const mountPath = `/v2/${target.name}/blobs/uploads/?mount=${digest}&from=${source.name}`;
    const scopes = challengeScopes(await registryCall(mountPath, { method: "POST" }));
    const token = await registryToken(scopes, basicAuth(dev.username, await makePat(dev.id, ["write_registry"])));
    const res = await registryCall(mountPath, { method: "POST", bearer: token });
    expect(res.status).toBe(202);
    expect(res.headers.get("Location")).toMatch(new RegExp(`^/v2/${target.name}/blobs/uploads/[0-9a-f-]{36}$`));
    expect((await registryCall(`/v2/${target.name}/blobs/${digest}`, { method: "HEAD", bearer: token })).status).toBe(404);
  });

  it("a plain upload's challenge names only the target", async () => {
    const owner = await makeUser();
    const target = await projectOf(owner);
    const res = await registryCall(`/v2/${target.name}/blobs/uploads/`, { method: "POST" });
    expect(challengeScopes(res)).toEqual([`repository:${target.name}:pull,push`]);
  });
});
