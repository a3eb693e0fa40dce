import { type Context } from "hono";
import { getDb } from "../../db/client";
import { findRepository, listRepositories, tagsOf } from "../../db/registry";
import { projectRegistrySize } from "../../db/registry-content";
import { getConfig } from "../../config";
import { deleteContainerRepository, deleteContainerTags } from "../../services/registry-images";
import { RevokeForm, TableHead } from "../components";
import { Flash, formatDate, renderPage, sessionActor, setFlash, takeFlash, type PageEnv, type VisitorEnv } from "../page";
import { formatBytes, projectForPage, PROJECT_PATH } from "../project-page";
import { csrfToken } from "../session";
import { pageApp } from "../door";

/**
 * /<namespace>/<project>/container_registry: the project's image repositories with their tags and
 * sizes (GitLab's Packages and registries → Container registry); developers delete tags and
 * repositories, after a confirmation, through the same code as the REST API. Anyone may look at a
 * public project's images (as `docker pull` may); deleting needs a signed-in developer.
 */
const registryView = pageApp<VisitorEnv>({ enter: "visitor" });
export const registryActions = pageApp({ enter: "signed-in" });

type Ctx = Context<PageEnv>;
const MAX_REPOSITORIES = 100;

async function page(c: Context<VisitorEnv>) {
  const { project, access } = await projectForPage(c, "read_container_image");
  const db = getDb(c.env.DB);
  const { rows: repos } = await listRepositories(db, { projectId: project.id }, { limit: MAX_REPOSITORIES, offset: 0 });
  const tags = await tagsOf(db, repos.map((r) => r.id));
  const [used, quota] = [await projectRegistrySize(db, project.id), getConfig(c.env).registry.projectQuotaBytes];
  const host = new URL(c.req.url).host;
  const canDelete = access.can("destroy_container_image");
  // Only a developer sees the delete forms; an anonymous visitor gets no session for a form token.
  const token = canDelete ? await csrfToken(c) : "";
  const base = `/${project.pathWithNamespace}/container_registry`;
  return renderPage(
    c,
    `Container registry · ${project.name}`,
    <>
      <h1>Container registry</h1>
      <p class="muted">{project.pathWithNamespace}</p>
      <Flash kind="notice" message={takeFlash(c)} />
      <section class="card" aria-labelledby="push-heading">
        <h2 id="push-heading">Push an image</h2>
        <p>
          Sign in with a personal access token (<code>read_registry</code>, <code>write_registry</code>) or a deploy token:
        </p>
        <pre>
          <code>{`docker login ${host}\ndocker push ${host}/${project.pathWithNamespace.toLowerCase()}:latest`}</code>
        </pre>
        {new URL(c.req.url).protocol === "http:" ? <InsecureRegistryNote host={host} /> : null}
      </section>
      <p id="registry-size">
        Storage used: {formatBytes(used)}
        {quota !== null ? ` of ${formatBytes(quota)} (quota)` : ""}
      </p>
      <h2>Image repositories ({repos.length})</h2>
      {repos.length === 0 ? <p class="muted">No images have been pushed to this project yet.</p> : null}
      {repos.map((repo) => {
        const list = tags.get(repo.id) ?? [];
        const size = list.reduce((n, t) => n + t.totalSize, 0);
        return (
          <section class="card" aria-label={`Repository ${repo.path}`}>
            <h3>{repo.path}</h3>
            <p>
              {list.length} {list.length === 1 ? "tag" : "tags"} · {formatBytes(size)} · created {formatDate(repo.createdAt)}
            </p>
            {list.length ? (
              <table>
                <TableHead columns={["Tag", "Digest", "Size", "Published"]} action={canDelete} />
                <tbody>
                  {list.map((t) => (
                    <tr>
                      <td>
                        <code>{t.name}</code>
                      </td>
                      <td>
                        <code title={t.digest}>{t.digest.slice(0, 19)}</code>
                      </td>
                      <td>{formatBytes(t.totalSize)}</td>
                      <td>{formatDate(t.createdAt)}</td>
                      {canDelete ? (
                        <td>
                          <RevokeForm
                            action={`${base}/${repo.id}/tags/${encodeURIComponent(t.name)}/delete`}
                            confirm={`Delete the tag ${repo.path}:${t.name}? Pulls of it will fail.`}
                            label={`Delete tag ${t.name}`}
                            token={token}
                            button="Delete"
                          />
                        </td>
                      ) : null}
                    </tr>
                  ))}
                </tbody>
              </table>
            ) : null}
            {canDelete ? (
              <RevokeForm
                action={`${base}/${repo.id}/delete`}
                confirm={`Delete the repository ${repo.path} with all its tags? This cannot be undone.`}
                label={`Delete repository ${repo.path}`}
                token={token}
                button="Delete repository"
              />
            ) : null}
          </section>
        );
      })}
    </>,
  );
}

registryView.get(`${PROJECT_PATH}/container_registry`, (c) => page(c));

/**
 * Served over plain http (a local `npm start`), docker and podman refuse the registry until told
 * it is insecure; without this note `docker login` fails with "server gave HTTP response to HTTPS client".
 */
function InsecureRegistryNote({ host }: { host: string }) {
  return (
    <div class="flash warning" id="insecure-registry" role="note">
      <p>
        <strong>This registry is served over plain HTTP.</strong> Docker and Podman use HTTPS unless told that the registry is insecure:
      </p>
      <ul>
        <li>
          Docker: add <code>{`"insecure-registries": ["${host}"]`}</code> to <code>/etc/docker/daemon.json</code> and restart the daemon
          (<code>sudo systemctl restart docker</code>). Addresses under 127.0.0.0/8 are already trusted.
        </li>
        <li>
          Podman, Buildah, Skopeo: add to <code>/etc/containers/registries.conf</code> (or <code>~/.config/containers/registries.conf</code>):
          <pre>
            <code>{`[[registry]]\nlocation = "${host}"\ninsecure = true`}</code>
          </pre>
          or pass <code>--tls-verify=false</code> to <code>podman login</code>, <code>push</code> and <code>pull</code>.
        </li>
      </ul>
      <p>Serve the registry over HTTPS in production (docs/deploy.md).</p>
    </div>
  );
}

async function repositoryOf(c: Ctx) {
  const { project } = await projectForPage(c, "destroy_container_image");
  const repo = await findRepository(getDb(c.env.DB), Number(c.req.param("repo")));
  return { project, repo: repo && repo.projectId === project.id ? repo : null };
}

registryActions.post(`${PROJECT_PATH}/container_registry/:repo/tags/:tag/delete`, async (c) => {
  const { project, repo } = await repositoryOf(c);
  // Decoded once by the router (src/http/path-decoding.ts); a second decode would misread "%25".
  const tag = c.req.param("tag");
  const ok = repo !== null && (await deleteContainerTags(c.env, sessionActor(c), project, repo, [tag])).length > 0;
  setFlash(c, ok ? `The tag ${repo!.path}:${tag} was deleted.` : "No such tag.");
  return c.redirect(`/${project.pathWithNamespace}/container_registry`, 303);
});

registryActions.post(`${PROJECT_PATH}/container_registry/:repo/delete`, async (c) => {
  const { project, repo } = await repositoryOf(c);
  if (repo) await deleteContainerRepository(c.env, sessionActor(c), project, repo);
  setFlash(c, repo ? `The repository ${repo.path} was deleted.` : "No such repository.");
  return c.redirect(`/${project.pathWithNamespace}/container_registry`, 303);
});

export default registryView;
