import { type Context, type Next } from "hono";
import { getDb } from "../../db/client";
import { listPackages } from "../../db/packages";
import { listRunners } from "../../db/runners";
import { projectRunnerScope, runnerWhere } from "../../db/runner-filters";
import { getConfig } from "../../config";
import { reportStatus } from "../../domain/runner-status";
import { familyOf } from "../../http/families";
import { CopyableCode, TableHead } from "../components";
import { Flash, formatDate, renderPage, takeFlash, type VisitorEnv } from "../page";
import { PROJECT_PATH, projectForPage } from "../project-page";
import { originSettings } from "../../git/origin-client";
import { FileList, FileText, fileText, listDirectory, readmeOf, unlessOriginUnavailable } from "../repository-view";
import { pageApp } from "../door";

/**
 * /<namespace>/<project>: a project's page, from which its sections are reached: the clone URL,
 * the container registry, the packages, and for maintainers the runners it can use (GitLab's
 * Settings > CI/CD > Runners) and the settings (deploy tokens).
 * Public projects are shown to visitors; a project the viewer may not see answers exactly as one
 * that does not exist (an anonymous visitor is sent to sign in first, as GitLab does: the
 * `visitor` door's refusal, src/web/door.ts).
 *
 * The path pattern also matches git's endpoints below a repository (`/<ns>/<p>.git/info/refs`),
 * which belong to the git family (src/http/families.ts): those pass on to it untouched.
 */
const projectPage = pageApp<VisitorEnv>({ enter: "visitor" });
const MAX_PACKAGES = 20;
const MAX_RUNNERS = 20;
const MAX_FILES = 50;

const isPagePath = (c: Context) => familyOf(c.req.path) === "pages";

projectPage.get(PROJECT_PATH, async (c: Context<VisitorEnv>, next: Next) => {
  if (!isPagePath(c)) return next();
  const db = getDb(c.env.DB);
  const { project, access } = await projectForPage(c, "read_project");
  const origin = new URL(c.req.url).origin;
  const base = `/${project.pathWithNamespace}`;
  const readsCode = access.can("read_code");
  const { rows: packages, total, hasNext } = access.can("read_package")
    ? await listPackages(db, project.id, { filter: {}, orderBy: "created_at", sort: "desc", limit: MAX_PACKAGES, offset: 0 })
    : { rows: [], total: 0, hasNext: false };
  // Runners are a maintainer's view, as GET /projects/:id/runners (the same rule, src/db/runners.ts).
  const maintains = access.can("admin_project");
  const runners = maintains
    ? await listRunners(db, { where: await runnerWhere(db, projectRunnerScope(project), [], Date.now()), orderBy: "id", sort: "desc", limit: MAX_RUNNERS, offset: 0 })
    : null;
  const now = Date.now();
  const version = getConfig(c.env).serviceVersion;
  // The files at the root of the default branch and its README (GitLab's project overview).
  const gitOrigin = originSettings(c.env);
  const files = readsCode && gitOrigin.url ? await listDirectory(gitOrigin, project.id, project.defaultBranch, "", MAX_FILES) : null;
  const readme = files?.kind === "files" ? readmeOf(files.entries) : null;
  // The README is a part of the overview: an origin lost since the listing leaves it out, not the page.
  const readmeText = readme ? await fileText(gitOrigin, project.id, project.defaultBranch, readme.path).catch(unlessOriginUnavailable) : null;
  return renderPage(
    c,
    project.name,
    <>
      <h1>
        <bdi>{project.name}</bdi>
      </h1>
      <p class="muted">
        <span class="id">{project.pathWithNamespace}</span> <span class="badge">{project.visibility}</span>
      </p>
      <Flash kind="notice" message={takeFlash(c)} />
      {project.description ? <p>{project.description}</p> : null}
      {readsCode ? (
        <section class="card" aria-labelledby="clone-heading">
          <h2 id="clone-heading">Clone</h2>
          <p>Clone with HTTPS (sign in with your username and a personal access token as the password):</p>
          <CopyableCode id="clone-url" value={`${origin}${base}.git`} copyLabel="Copy URL" />
        </section>
      ) : null}
      {files ? (
        <section class="card" aria-labelledby="files-heading">
          <h2 id="files-heading">Files</h2>
          {files.kind === "files" ? (
            <>
              <p class="muted">
                On <span class="id">{project.defaultBranch}</span>
                {files.total > files.entries.length ? ` (the first ${files.entries.length} of ${files.total}; `: " ("}
                <a href={`${base}/-/tree/${project.defaultBranch}`}>browse</a>)
              </p>
              <FileList base={base} ref={project.defaultBranch} entries={files.entries} />
            </>
          ) : files.kind === "empty" ? (
            <p class="muted">This repository is empty. Push to it with the clone URL above.</p>
          ) : (
            <p class="muted">The repository cannot be read right now.</p>
          )}
        </section>
      ) : null}
      {readme && readmeText?.text ? <FileText name={readme.name} text={readmeText.text} /> : null}
      <nav aria-label="Project" class="card">
        <h2>Sections</h2>
        <ul>
          {access.can("read_container_image") ? (
            <li>
              <a href={`${base}/container_registry`}>Container registry</a>
            </li>
          ) : null}
          <li>
            <a href="#packages">Packages</a> ({total})
          </li>
          {runners ? (
            <li>
              <a href="#runners">Runners</a> ({runners.total ?? "10,000+"})
            </li>
          ) : null}
          {maintains ? (
            <li>
              <a href={`${base}/edit`}>Settings: general</a>
            </li>
          ) : null}
          {maintains ? (
            <li>
              <a href={`${base}/-/settings/repository`}>Settings: deploy tokens</a>
            </li>
          ) : null}
        </ul>
      </nav>
      <h2 id="packages">Packages</h2>
      {packages.length === 0 ? (
        <p class="muted">No packages have been published to this project.</p>
      ) : (
        <table>
          <TableHead columns={["Name", "Version", "Type"]} />
          <tbody>
            {packages.map((p) => (
              <tr>
                <td class="id">{p.name}</td>
                <td class="id">{p.version}</td>
                <td>{p.packageType}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {hasNext ? <p class="muted">The {MAX_PACKAGES} newest of {total ?? "more than 10,000"} packages (all of them: GET /api/v4/projects/:id/packages).</p> : null}
      {runners ? (
        <>
          <h2 id="runners">Runners</h2>
          {runners.rows.length === 0 ? (
            <p class="muted">No runner can pick up this project's jobs yet.</p>
          ) : (
            <table>
              <TableHead columns={["Runner", "Type", "Status", "Last contact"]} />
              <tbody>
                {runners.rows.map((r) => (
                  <tr>
                    <td>
                      <span class="id">#{r.id}</span> <bdi>{r.description}</bdi>
                    </td>
                    <td>{r.runnerType.replace("_type", "")}</td>
                    <td>{reportStatus(r, now, "rest", version).status}</td>
                    <td>{formatDate(r.contactedAt)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          {runners.hasNext ? <p class="muted">The {MAX_RUNNERS} newest of {runners.total ?? "more than 10,000"} runners (all of them: GET /api/v4/projects/:id/runners).</p> : null}
        </>
      ) : null}
    </>,
  );
});

export default projectPage;
