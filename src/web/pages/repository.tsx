import { type Context } from "hono";
import { originSettings } from "../../git/origin-client";
import { encodeRefPath, readCommit } from "../../git/repository-reader";
import { reasonOf } from "../../domain/errors";
import type { ProjectRow } from "../../db/projects";
import { renderPage, type VisitorEnv } from "../page";
import { formatBytes, projectForPage, PROJECT_PATH } from "../project-page";
import { FileList, FileText, fileText, listDirectory, splitRefPath } from "../repository-view";
import { notFoundPage } from "./not-found";
import { pageApp } from "../door";

/**
 * A repository's pages, read-only (GitLab's paths): a directory at a ref (/-/tree/<ref>/<path>,
 * a branch's `web_url`), a file (/-/blob/<ref>/<path>) and a commit (/-/commit/<sha>, a commit's
 * `web_url`). The viewer must be able to read the code, as for git fetch and the Repository API:
 * anyone for a public project, as GitLab shows it.
 */
const repositoryPages = pageApp<VisitorEnv>({ enter: "visitor" });

type Ctx = Context<VisitorEnv>;

async function codeReader(c: Ctx): Promise<ProjectRow> {
  return (await projectForPage(c, "read_code")).project;
}

/** The `<ref>/<path>` after /-/tree/ or /-/blob/ in the request's path. */
function refPathOf(c: Ctx, section: "tree" | "blob"): string {
  const marker = `/-/${section}/`;
  return c.req.path.slice(c.req.path.indexOf(marker) + marker.length).replace(/\/+$/, "");
}

repositoryPages.get(PROJECT_PATH + "/-/tree/*", async (c) => {
  const project = await codeReader(c);
  const origin = originSettings(c.env);
  const { ref, path } = await splitRefPath(origin, project.id, refPathOf(c, "tree"));
  const listing = await listDirectory(origin, project.id, ref, path);
  if (listing.kind === "empty") return notFoundPage(c);
  const base = `/${project.pathWithNamespace}`;
  return renderPage(
    c,
    `${path || ref} · ${project.name}`,
    <>
      <h1 class="id">{path ? `${path}/` : project.name}</h1>
      <p class="muted">
        <a href={base}>{project.pathWithNamespace}</a> at <span class="id">{ref}</span>
      </p>
      {listing.kind === "unavailable" ? (
        <p class="flash error">The repository cannot be read right now. Try again later.</p>
      ) : (
        <>
          <FileList base={base} ref={ref} entries={listing.entries} />
          {listing.total > listing.entries.length ? (
            <p class="muted">
              The first {listing.entries.length} of {listing.total} entries (all of them: GET /api/v4/projects/{project.id}/repository/tree).
            </p>
          ) : null}
        </>
      )}
    </>,
  );
});

repositoryPages.get(PROJECT_PATH + "/-/blob/*", async (c) => {
  const project = await codeReader(c);
  const origin = originSettings(c.env);
  const { ref, path } = await splitRefPath(origin, project.id, refPathOf(c, "blob"));
  const file = path ? await fileText(origin, project.id, ref, path) : null;
  if (!file) return notFoundPage(c);
  const base = `/${project.pathWithNamespace}`;
  const raw = `/api/v4/projects/${project.id}/repository/files/${encodeURIComponent(path)}/raw?ref=${encodeURIComponent(ref)}`;
  return renderPage(
    c,
    `${path} · ${project.name}`,
    <>
      <h1 class="id">{path}</h1>
      <p class="muted">
        <a href={base}>{project.pathWithNamespace}</a> at <a href={`${base}/-/tree/${encodeRefPath(ref)}`}>{ref}</a> · {formatBytes(file.size)}
      </p>
      {file.text === null ? (
        <p>
          This file is binary or larger than a page shows. Read it with <code>GET {raw}</code>.
        </p>
      ) : (
        <FileText name={path} text={file.text} />
      )}
    </>,
  );
});

repositoryPages.get(PROJECT_PATH + "/-/commit/:sha", async (c) => {
  const project = await codeReader(c);
  let commit;
  try {
    commit = await readCommit(originSettings(c.env), project.id, c.req.param("sha") ?? "");
  } catch (err) {
    if (reasonOf(err, ["missing", "invalid"] as const)) return notFoundPage(c);
    throw err;
  }
  const [title = "", ...body] = commit.message.replace(/\n+$/, "").split("\n");
  const base = `/${project.pathWithNamespace}`;
  return renderPage(
    c,
    `${title} · ${project.name}`,
    <>
      <h1>
        <bdi>{title}</bdi>
      </h1>
      <p class="muted">
        <a href={base}>{project.pathWithNamespace}</a> · commit <span class="id">{commit.id}</span>
      </p>
      {body.join("\n").trim() ? (
        <pre>
          <code>{body.join("\n").trim()}</code>
        </pre>
      ) : null}
      <dl>
        <dt>Author</dt>
        <dd>
          <bdi>{commit.authorName}</bdi> ({commit.authoredDate})
        </dd>
        <dt>Committer</dt>
        <dd>
          <bdi>{commit.committerName}</bdi> ({commit.committedDate})
        </dd>
        <dt>Parents</dt>
        <dd>
          {commit.parentIds.length === 0
            ? "None (the first commit)"
            : commit.parentIds.map((p) => (
                <div>
                  <a class="id" href={`${base}/-/commit/${p}`}>
                    {p}
                  </a>
                </div>
              ))}
        </dd>
        {commit.stats ? (
          <>
            <dt>Changes</dt>
            <dd>
              {commit.stats.additions} additions, {commit.stats.deletions} deletions
            </dd>
          </>
        ) : null}
      </dl>
      <p>
        <a href={`${base}/-/tree/${commit.id}`}>Browse the files at this commit</a>
      </p>
    </>,
  );
});

export default repositoryPages;
