import { type Context } from "hono";
import type { ProjectRow } from "../../db/projects";
import type { ProjectAccess } from "../../services/abilities";
import { AppError } from "../../domain/errors";
import { VISIBILITIES, type VisibilityLevel } from "../../domain/namespace-input";
import { updateProject } from "../../services/namespaces";
import { CsrfField, Flash, renderPage, sessionActor, setFlash, type PageEnv } from "../page";
import { projectForPage, PROJECT_PATH } from "../project-page";
import { csrfToken } from "../session";
import { pageApp } from "../door";

/**
 * /<namespace>/<project>/edit (GitLab's Settings > General): the project's name, description and
 * visibility, through the service PUT /api/v4/projects/:id uses, with its rules: maintainers edit,
 * only owners rename.
 */
const settings = pageApp({ enter: "signed-in" });

type Ctx = Context<PageEnv>;
type Values = { name: string; description: string; visibility: VisibilityLevel };

async function form(c: Ctx, project: ProjectRow, access: ProjectAccess, values: Values, error?: string) {
  const renames = access.can("rename_project");
  const base = `/${project.pathWithNamespace}`;
  return renderPage(
    c,
    `Settings · ${project.name}`,
    <>
      <h1>General settings</h1>
      <p class="muted">
        <a href={base}>{project.pathWithNamespace}</a>
      </p>
      <Flash kind="error" message={error} />
      <form method="post" action={`${base}/edit`} class="card">
        <CsrfField token={await csrfToken(c)} />
        <label for="project_name">Project name</label>
        {!renames ? (
          <p class="hint" id="project_name_hint">
            Only owners rename a project.
          </p>
        ) : null}
        <input type="text" id="project_name" name="name" required maxlength={255} value={values.name} readonly={!renames} aria-describedby={!renames ? "project_name_hint" : undefined} />
        <label for="project_description">Project description (optional)</label>
        <textarea id="project_description" name="description" maxlength={2000}>
          {values.description}
        </textarea>
        <fieldset>
          <legend>Visibility level</legend>
          {VISIBILITIES.map((v) => (
            <div>
              <input type="radio" id={`visibility_${v}`} name="visibility" value={v} checked={v === values.visibility} />
              <label for={`visibility_${v}`}>{v[0]!.toUpperCase() + v.slice(1)}</label>
            </div>
          ))}
        </fieldset>
        <button type="submit">Save changes</button>
      </form>
    </>,
    error ? 422 : 200,
  );
}

settings.get(PROJECT_PATH + "/edit", async (c) => {
  const { project, access } = await projectForPage(c, "admin_project");
  return form(c, project, access, { name: project.name, description: project.description, visibility: project.visibility as VisibilityLevel });
});

settings.post(PROJECT_PATH + "/edit", async (c) => {
  const { project, access } = await projectForPage(c, "admin_project");
  const body = await c.req.parseBody();
  const values: Values = {
    name: typeof body.name === "string" ? body.name.trim().slice(0, 255) : project.name,
    description: typeof body.description === "string" ? body.description.trim().slice(0, 2000) : project.description,
    visibility: (VISIBILITIES as readonly string[]).includes(String(body.visibility)) ? (body.visibility as VisibilityLevel) : (project.visibility as VisibilityLevel),
  };
  if (!values.name) return form(c, project, access, values, "Name can't be blank.");
  if (values.name !== project.name && !access.can("rename_project")) return form(c, project, access, values, "Only owners rename a project.");
  try {
    await updateProject(c.env, sessionActor(c), project, values);
  } catch (err) {
    if (err instanceof AppError && err.code === "invalid") return form(c, project, access, values, err.message);
    throw err;
  }
  setFlash(c, `Project '${values.name}' was successfully updated.`);
  return c.redirect(`/${project.pathWithNamespace}`, 303);
});

export default settings;
