import { env } from "cloudflare:test";
import { getDb } from "../../src/db/client";
import { createMergeRequest, mergeMergeRequest } from "../../src/db/merge-requests";
import { addPackageFile, createPipeline, findOrCreatePackage } from "../../src/db/packages";
import { AccessLevel } from "../../src/domain/access";
import { createIssue } from "../../src/db/issues";
import { recordFindings, type NewFinding } from "../../src/db/pipelines";
import { makePat, makeUser, unique } from "../helpers/fixtures";
import { addMemberTo, makeGroup, makeProject } from "../helpers/resources";

/** GraphQL test data, built through the repositories of each area on the real D1 binding. */
export const db = () => getDb(env.DB);

/** A group (owned by a fresh user) with a project; the owner's api token. */
export async function groupWithProject(opts: { visibility?: string } = {}) {
  const owner = await makeUser();
  const group = await makeGroup(owner.id, { visibility: opts.visibility ?? "private" });
  const project = await makeProject(owner.id, { groupId: group.id, groupPath: group.fullPath, visibility: opts.visibility ?? "private" });
  const token = await makePat(owner.id, ["api"]);
  return { owner, group, project, token };
}

/** A user with the given role on a project (or group) and a token with the given scopes. */
export async function memberToken(kind: "group" | "project", sourceId: number, level: number = AccessLevel.REPORTER, scopes = ["api"]) {
  const user = await makeUser();
  await addMemberTo(kind, sourceId, user.id, level);
  return { user, token: await makePat(user.id, scopes) };
}

export async function pipeline(projectId: number, status = "success") {
  return createPipeline(db(), { projectId, sha: unique("sha").padEnd(40, "0").slice(0, 40), ref: "main", status });
}

/** A generic package version built by the given pipelines. */
export async function packageVersion(projectId: number, name: string, version: string, pipelineIds: number[] = []) {
  const pkg = await findOrCreatePackage(db(), projectId, name, version, "generic", "default");
  for (const pipelineId of pipelineIds) {
    await addPackageFile(db(), { packageId: pkg.id, fileName: `${name}-${pipelineId}.tgz`, size: 10, fileSha256: "0".repeat(64), r2Key: unique("r2"), pipelineId });
  }
  return pkg;
}

export async function mergedMergeRequest(projectId: number, authorId: number, merger: number, description = "") {
  const mr = await createMergeRequest(db(), {
    projectId,
    title: "Add the feature",
    description,
    sourceBranch: "feature",
    targetBranch: "main",
    authorId,
    assigneeId: null,
    labels: "",
    sha: "a".repeat(40),
  });
  return (await mergeMergeRequest(db(), mr.id, merger, "b".repeat(40)))!;
}

export async function issue(projectId: number, authorId: number, title = "An issue") {
  return createIssue(db(), { projectId, title, description: "", authorId });
}

export async function findings(pipelineRow: { id: number; projectId: number }, list: NewFinding[]) {
  await recordFindings(db(), pipelineRow, list);
}

export const gid = (model: string, id: number) => `gid://gitlab/${model}/${id}`;
