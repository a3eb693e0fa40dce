import { type Context } from "hono";
import { getDb } from "../../db/client";
import { getDeployToken, listDeployTokens } from "../../db/deploy-tokens";
import { DEPLOY_TOKEN_SCOPES, isDeployTokenExpired, type DeployTokenErrors } from "../../domain/deploy-token-input";
import { createDeployToken, revokeDeployToken } from "../../services/deploy-tokens";
import { RevokeForm, ScopeBadges, ShownOnce, TableHead } from "../components";
import { CsrfField, Flash, formatDate, renderPage, sessionActor, setFlash, takeFlash, type PageEnv } from "../page";
import { projectForPage, PROJECT_PATH } from "../project-page";
import { csrfToken } from "../session";
import { parseScopeList, parseScopes } from "../../domain/scopes";
import { pageApp } from "../door";

/**
 * /<namespace>/<project>/-/settings/repository: the project's deploy tokens (GitLab puts them in
 * Settings → Repository). Maintainers create one (shown once) and revoke it.
 */
const deployTokensPage = pageApp({ enter: "signed-in" });

type Ctx = Context<PageEnv>;
interface FormValues {
  name: string;
  username: string;
  expiresAt: string;
  scopes: string[];
}

const SCOPE_HINTS: Record<(typeof DEPLOY_TOKEN_SCOPES)[number], string> = {
  read_repository: "Allows read-only access to the repository (git clone and fetch).",
  read_registry: "Allows read-only access to the container registry images.",
  write_registry: "Allows read and write access to the container registry images.",
  read_package_registry: "Allows read-only access to the package registry.",
  write_package_registry: "Allows read and write access to the package registry.",
};

async function page(c: Ctx, opts: { values?: FormValues; errors?: DeployTokenErrors; created?: { token: string; username: string } } = {}) {
  const { project } = await projectForPage(c, "admin_project");
  const now = Date.now();
  const { rows } = await listDeployTokens(getDb(c.env.DB), { projectId: project.id }, { active: true, now, limit: 100, offset: 0 });
  const token = await csrfToken(c);
  const values = opts.values ?? { name: "", username: "", expiresAt: "", scopes: [] };
  const errorText = Object.entries(opts.errors ?? {}).map(([field, list]) => `${field === "expires_at" ? "Expiration date" : field === "scopes" ? "Scopes" : field === "username" ? "Username" : "Name"} ${list!.join(", ")}.`);
  const base = `/${project.pathWithNamespace}/-/settings/repository`;
  return renderPage(
    c,
    `Deploy tokens · ${project.name}`,
    <>
      <h1>Repository settings</h1>
      <p class="muted">{project.pathWithNamespace}</p>
      <Flash kind="notice" message={takeFlash(c)} />
      <h2>Deploy tokens</h2>
      <p>Deploy tokens give read access to the repository and read or write access to the container and package registries, without a user.</p>
      {opts.created ? (
        <section class="card" aria-labelledby="created-heading">
          <h3 id="created-heading">Your new deploy token</h3>
          <p>
            Username: <code id="deploy-token-username">{opts.created.username}</code>
          </p>
          <ShownOnce id="created-deploy-token" value={opts.created.token} copyLabel="Copy token" warning="Use this token as a password. Make sure you save it: you won't be able to access it again." />
        </section>
      ) : null}
      {errorText.length ? <Flash kind="error" message={errorText.join(" ")} /> : null}
      <form method="post" action={`${base}/deploy_tokens`} class="card">
        <CsrfField token={token} />
        <label for="deploy_token_name">Name</label>
        <input type="text" id="deploy_token_name" name="name" required maxlength={255} value={values.name} />
        <label for="deploy_token_expires_at">Expiration date (optional)</label>
        <input type="date" id="deploy_token_expires_at" name="expires_at" value={values.expiresAt} />
        <label for="deploy_token_username">Username (optional)</label>
        <p class="hint" id="deploy_token_username_hint">
          Default: gitlab+deploy-token-&lt;id&gt;
        </p>
        <input type="text" id="deploy_token_username" name="username" maxlength={255} value={values.username} aria-describedby="deploy_token_username_hint" />
        <fieldset>
          <legend>Scopes</legend>
          {DEPLOY_TOKEN_SCOPES.map((scope) => (
            <div class="checkbox">
              <input type="checkbox" id={`deploy_token_scope_${scope}`} name="scopes" value={scope} checked={values.scopes.includes(scope)} aria-describedby={`deploy_token_scope_${scope}_hint`} />
              <label for={`deploy_token_scope_${scope}`}>{scope}</label>
              <p class="hint" id={`deploy_token_scope_${scope}_hint`}>
                {SCOPE_HINTS[scope]}
              </p>
            </div>
          ))}
        </fieldset>
        <button type="submit">Create deploy token</button>
      </form>
      <h3>Active deploy tokens ({rows.length})</h3>
      {rows.length === 0 ? (
        <p class="muted">This project has no active deploy tokens.</p>
      ) : (
        <table>
          <TableHead columns={["Name", "Username", "Created", "Expires", "Scopes"]} action />
          <tbody>
            {rows.map((t) => (
              <tr>
                <td>{t.name}</td>
                <td>
                  <code>{t.username}</code>
                </td>
                <td>{formatDate(t.createdAt)}</td>
                <td>{t.expiresAt === null ? "Never" : isDeployTokenExpired(t.expiresAt, now) ? "Expired" : formatDate(t.expiresAt)}</td>
                <td>
                  <ScopeBadges scopes={parseScopes(t.scopes)} />
                </td>
                <td>
                  <RevokeForm action={`${base}/deploy_tokens/${t.id}/revoke`} confirm={`Revoke ${t.name}? It stops working at once.`} label={`Revoke ${t.name}`} token={token} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>,
    opts.errors ? 422 : opts.created ? 201 : 200,
  );
}

deployTokensPage.get(`${PROJECT_PATH}/-/settings/repository`, (c) => page(c));

deployTokensPage.post(`${PROJECT_PATH}/-/settings/repository/deploy_tokens`, async (c) => {
  const { project } = await projectForPage(c, "admin_project");
  const body = await c.req.parseBody({ all: true });
  const str = (v: unknown) => (typeof v === "string" ? v : "");
  const values: FormValues = {
    name: str(body.name),
    username: str(body.username),
    expiresAt: str(body.expires_at),
    scopes: ([] as unknown[]).concat(body.scopes ?? []).filter((s): s is string => typeof s === "string"),
  };
  const created = await createDeployToken(c.env, sessionActor(c), { project }, { ...values, scopes: parseScopeList(values.scopes) });
  if (!created.ok) return page(c, { values, errors: created.errors });
  // Shown in this response only; storage has its hash.
  return page(c, { created: { token: created.token, username: created.row.username } });
});

deployTokensPage.post(`${PROJECT_PATH}/-/settings/repository/deploy_tokens/:id/revoke`, async (c) => {
  const { project } = await projectForPage(c, "admin_project");
  const row = await getDeployToken(getDb(c.env.DB), { projectId: project.id }, Number(c.req.param("id")));
  if (row) await revokeDeployToken(c.env, sessionActor(c), row);
  setFlash(c, row ? `The deploy token ${row.name} was revoked.` : "No such deploy token.");
  return c.redirect(`/${project.pathWithNamespace}/-/settings/repository`, 303);
});

export default deployTokensPage;
