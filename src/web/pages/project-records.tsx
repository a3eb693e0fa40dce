import { type Context } from "hono";
import { getDb } from "../../db/client";
import { findIssueByIid } from "../../db/issues";
import { findMergeRequest, usersById } from "../../db/merge-requests";
import { findPackage, findPipeline, packageFilesOf } from "../../db/packages";
import type { ProjectRow } from "../../db/projects";
import { TableHead } from "../components";
import { formatDate, renderPage, type VisitorEnv } from "../page";
import { formatBytes, projectForPage, PROJECT_PATH } from "../project-page";
import { notFoundPage } from "./not-found";
import { pageApp } from "../door";

/**
 * Read-only pages of a project's records, at the `web_url` and `_links.web_path` the APIs return:
 * a merge request (/-/merge_requests/<iid>), an issue (/-/issues/<iid>), a pipeline
 * (/-/pipelines/<id>) and a package (/-/packages/<id>). Editing them stays with the APIs.
 * Each needs what its REST read needs: code readers for merge requests and pipelines, reporters
 * on a private project for packages, any viewer of the project for issues; anyone may read what
 * a public project shows anyone (the `visitor` door).
 */
const records = pageApp<VisitorEnv>({ enter: "visitor" });

type Ctx = Context<VisitorEnv>;

const idOf = (raw: string | undefined) => (raw && /^[1-9][0-9]{0,15}$/.test(raw) ? Number(raw) : 0);

/** The project, when the viewer may read its code (read_code; else the resolver's not found or forbidden). */
async function codeReader(c: Ctx): Promise<ProjectRow> {
  return (await projectForPage(c, "read_code")).project;
}

const ProjectLine = ({ project }: { project: ProjectRow }) => (
  <p class="muted">
    <a href={`/${project.pathWithNamespace}`}>{project.pathWithNamespace}</a>
  </p>
);

const UserLink = ({ user }: { user?: { username: string; name: string } | null }) =>
  user ? (
    <a href={`/${user.username}`}>
      <bdi>{user.name}</bdi>
    </a>
  ) : (
    <span class="muted">Nobody</span>
  );

records.get(PROJECT_PATH + "/-/merge_requests/:iid", async (c) => {
  const project = await codeReader(c);
  const db = getDb(c.env.DB);
  const mr = project ? await findMergeRequest(db, project.id, idOf(c.req.param("iid"))) : null;
  if (!project || !mr) return notFoundPage(c);
  const people = await usersById(db, [mr.authorId, mr.assigneeId, mr.mergeUserId]);
  return renderPage(
    c,
    `${mr.title} (!${mr.iid}) · ${project.name}`,
    <>
      <h1>
        <bdi>{mr.title}</bdi> <span class="muted">!{mr.iid}</span>
      </h1>
      <ProjectLine project={project} />
      <p>
        <span class="badge">{mr.state}</span> <span class="id">{mr.sourceBranch}</span> into <span class="id">{mr.targetBranch}</span>
      </p>
      {mr.description ? <p>{mr.description}</p> : null}
      <dl>
        <dt>Author</dt>
        <dd>
          <UserLink user={people.get(mr.authorId)} />
        </dd>
        <dt>Assignee</dt>
        <dd>
          <UserLink user={mr.assigneeId === null ? null : people.get(mr.assigneeId)} />
        </dd>
        <dt>Created</dt>
        <dd>{formatDate(mr.createdAt)}</dd>
        {mr.mergedAt !== null ? (
          <>
            <dt>Merged</dt>
            <dd>
              {formatDate(mr.mergedAt)} by <UserLink user={mr.mergeUserId === null ? null : people.get(mr.mergeUserId)} />
            </dd>
          </>
        ) : null}
        <dt>Head commit</dt>
        <dd class="id">{mr.sha}</dd>
        {mr.labels ? (
          <>
            <dt>Labels</dt>
            <dd>
              {mr.labels.split(",").map((l) => (
                <span class="badge">{l}</span>
              ))}
            </dd>
          </>
        ) : null}
      </dl>
    </>,
  );
});

records.get(PROJECT_PATH + "/-/issues/:iid", async (c) => {
  const { project } = await projectForPage(c, "read_project");
  const db = getDb(c.env.DB);
  const issue = await findIssueByIid(db, project.id, idOf(c.req.param("iid")));
  if (!issue) return notFoundPage(c);
  const people = await usersById(db, [issue.authorId]);
  return renderPage(
    c,
    `${issue.title} (#${issue.iid}) · ${project.name}`,
    <>
      <h1>
        <bdi>{issue.title}</bdi> <span class="muted">#{issue.iid}</span>
      </h1>
      <ProjectLine project={project} />
      <p>
        <span class="badge">{issue.state}</span> opened {formatDate(issue.createdAt)} by <UserLink user={issue.authorId === null ? null : people.get(issue.authorId)} />
      </p>
      {issue.description ? <p>{issue.description}</p> : null}
    </>,
  );
});

records.get(PROJECT_PATH + "/-/pipelines/:id", async (c) => {
  const project = await codeReader(c);
  const db = getDb(c.env.DB);
  const pipeline = project ? await findPipeline(db, project.id, idOf(c.req.param("id"))) : null;
  if (!project || !pipeline) return notFoundPage(c);
  const people = await usersById(db, [pipeline.userId]);
  return renderPage(
    c,
    `Pipeline #${pipeline.id} · ${project.name}`,
    <>
      <h1>Pipeline #{pipeline.id}</h1>
      <ProjectLine project={project} />
      <dl>
        <dt>Status</dt>
        <dd>
          <span class="badge">{pipeline.status}</span>
        </dd>
        <dt>Ref</dt>
        <dd class="id">{pipeline.ref}</dd>
        <dt>Commit</dt>
        <dd class="id">{pipeline.sha}</dd>
        <dt>Source</dt>
        <dd>{pipeline.source}</dd>
        <dt>Triggered by</dt>
        <dd>
          <UserLink user={pipeline.userId === null ? null : people.get(pipeline.userId)} />
        </dd>
        <dt>Created</dt>
        <dd>{formatDate(pipeline.createdAt)}</dd>
      </dl>
    </>,
  );
});

records.get(PROJECT_PATH + "/-/packages/:id", async (c) => {
  // GitLab's read_package: reporters on a private project, anyone who sees a public or internal one.
  const { project } = await projectForPage(c, "read_package");
  const db = getDb(c.env.DB);
  const pkg = await findPackage(db, project.id, idOf(c.req.param("id")));
  if (!pkg) return notFoundPage(c);
  const files = await packageFilesOf(db, pkg.id);
  return renderPage(
    c,
    `${pkg.name} ${pkg.version} · ${project.name}`,
    <>
      <h1>
        <span class="id">{pkg.name}</span> <span class="muted">{pkg.version}</span>
      </h1>
      <ProjectLine project={project} />
      <p>
        <span class="badge">{pkg.packageType}</span> published {formatDate(pkg.createdAt)}
      </p>
      <h2>Files</h2>
      {files.length === 0 ? (
        <p class="muted">No files.</p>
      ) : (
        <table>
          <TableHead columns={["File", "Size", "SHA-256"]} />
          <tbody>
            {files.map((f) => (
              <tr>
                <td class="id">{f.fileName}</td>
                <td>{formatBytes(f.size)}</td>
                <td class="id">{f.fileSha256}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>,
  );
});

export default records;
