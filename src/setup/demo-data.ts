import { getConfig } from "../config";
import { sha256Hex } from "../crypto/hash";
import { isUniqueViolation } from "../db/errors";
import { getDb } from "../db/client";
import { createMergeRequest, createStatusCheck, mergeMergeRequest, recordStatusCheckResponse } from "../db/merge-requests";
import { createIteration } from "../db/iterations";
import { createManagedLicense } from "../db/licenses";
import { addMember, createGroup, createProject } from "../db/namespaces";
import { commitPackageFile, createPipeline } from "../db/packages";
import { findGroup } from "../db/projects";
import { createRunner } from "../db/runners";
import { findUserByLogin } from "../db/users";
import type { Bindings } from "../env";
import { createProjectRepository, readmeCommit } from "../git/provisioning";
import { pushSeedImage } from "../registry/seed";

/**
 * Demo data for `npm start` (SEED_DEMO_DATA=true): a group and project with runners in every
 * status, packages with pipelines, registry repositories with tags, a merged merge request,
 * iterations in every state, a status check and managed licenses, owned by root. Seeded once:
 * the group path `demo` is the marker, and its unique index settles a race between isolates.
 */
const DAY = 86400_000;
const day = (offset: number) => new Date(Date.now() + offset * DAY).toISOString().slice(0, 10);

export async function ensureDemoData(env: Bindings): Promise<void> {
  if (!getConfig(env).seedDemoData) return;
  const db = getDb(env.DB);
  if (await findGroup(db, "demo")) return;
  const root = await findUserByLogin(db, "root");
  if (!root) return;
  let group;
  try {
    group = await createGroup(db, { name: "Demo", path: "demo", parent: null, visibility: "internal", description: "Demo data of npm start", ownerId: root.id });
  } catch (e) {
    if (isUniqueViolation(e)) return; // another isolate seeds
    throw e;
  }
  const now = Date.now();
  const project = await createProject(db, {
    name: "Demo App",
    path: "demo-app",
    namespace: { kind: "group", id: group.id, fullPath: group.fullPath },
    visibility: "internal",
    description: "Every announced change has data here",
    creatorId: root.id,
  });
  await addMember(db, "project", project.id, root.id, 50, null);
  // A first commit, so that a first clone of the demo shows something.
  await createProjectRepository(env, project, readmeCommit(project, root));

  // Runners in every status: online, offline, stale, never contacted (recent and old), paused.
  await createRunner(db, { runnerType: "instance_type", description: "online instance runner", tagList: ["docker", "linux"], contactedAt: now - 60_000 });
  await createRunner(db, { runnerType: "project_type", projectId: project.id, description: "offline project runner", tagList: ["shell"], contactedAt: now - DAY });
  await createRunner(db, { runnerType: "group_type", groupId: group.id, description: "stale group runner", contactedAt: now - 120 * DAY, createdAt: now - 200 * DAY });
  await createRunner(db, { runnerType: "project_type", projectId: project.id, description: "never contacted runner" });
  await createRunner(db, { runnerType: "instance_type", description: "old never contacted runner", createdAt: now - 100 * DAY });
  await createRunner(db, { runnerType: "project_type", projectId: project.id, description: "paused runner", paused: true, contactedAt: now - 30 * 60_000 });

  // Packages with pipelines (the list's pipelines attribute until 15.0, the pipelines endpoint after).
  const p1 = await createPipeline(db, { projectId: project.id, sha: (await sha256Hex("demo-1")).slice(0, 40), ref: "main", userId: root.id });
  const p2 = await createPipeline(db, { projectId: project.id, sha: (await sha256Hex("demo-2")).slice(0, 40), ref: "main", userId: root.id });
  for (const [version, pipelines] of [["1.0.0", [p1.id]], ["1.1.0", [p1.id, p2.id]]] as const) {
    for (const pipelineId of pipelines) {
      const bytes = new TextEncoder().encode(`demo-tool ${version} built by pipeline ${pipelineId}\n`);
      const key = `packages/${project.id}/demo-tool-${version}/demo-${pipelineId}/demo-tool.txt`;
      await env.FILES.put(key, bytes);
      const file = { fileName: "demo-tool.txt", size: bytes.byteLength, fileSha256: await sha256Hex(bytes), r2Key: key, pipelineId };
      await commitPackageFile(db, { projectId: project.id, name: "demo-tool", version, packageType: "generic", status: "default", ...file });
    }
  }

  // Registry repositories with tags, pushed through the registry's own upload and manifest code.
  for (const [name, tags] of [["", ["latest", "v1.0.0"]], ["backend", ["latest", "v1.0.0", "v1.1.0"]]] as const) {
    await pushSeedImage(env, project, name, [...tags]);
  }

  // A merged and an open merge request; a status check answered on the open one.
  const mr = await createMergeRequest(db, { projectId: project.id, title: "Add the demo feature", description: "", sourceBranch: "feature", targetBranch: "main", authorId: root.id, assigneeId: root.id, labels: "demo", sha: p1.sha });
  await mergeMergeRequest(db, mr.id, root.id, p2.sha);
  const open = await createMergeRequest(db, { projectId: project.id, title: "Draft: next change", description: "", sourceBranch: "next", targetBranch: "main", authorId: root.id, assigneeId: null, labels: "", sha: p2.sha });
  const check = await createStatusCheck(db, project.id, "compliance", "https://compliance.example.com/hook");
  await recordStatusCheckResponse(db, open.id, check.id, open.sha, "passed");

  // Iterations in every state, relative to today.
  await createIteration(db, { groupId: group.id, title: "Closed iteration", description: "", startDate: day(-28), dueDate: day(-15) });
  await createIteration(db, { groupId: group.id, title: "Current iteration", description: "", startDate: day(-7), dueDate: day(6) });
  await createIteration(db, { groupId: group.id, title: "Upcoming iteration", description: "", startDate: day(14), dueDate: day(27) });

  await createManagedLicense(db, project.id, "MIT", "allowed");
  await createManagedLicense(db, project.id, "GPL-3.0", "denied");
}
