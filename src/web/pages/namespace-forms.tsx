import { type Context } from "hono";
import { getDb } from "../../db/client";
import { listGroups } from "../../db/namespace-listing";
import { findGroup } from "../../db/projects";
import { AppError } from "../../domain/errors";
import { isValidNamespacePath, pathFromName, VISIBILITIES, type VisibilityLevel } from "../../domain/namespace-input";
import { createGroup, createProject, type NewProject } from "../../services/namespaces";
import { CsrfField, Flash, renderPage, sessionActor, setFlash, type PageEnv } from "../page";
import { csrfToken } from "../session";
import { groupAccess, sessionAsker, type CheckedGroup } from "../../services/abilities";
import { pageApp } from "../door";

/**
 * GitLab's create pages: /projects/new (a project in the person's own namespace or a group they
 * may create projects in) and /groups/new (a top-level group, or a subgroup of one they own).
 * Both call the same services as POST /api/v4/projects and /groups (src/services/namespaces.ts),
 * with the same rules; the forms post to /projects and /groups as GitLab's do.
 */
const forms = pageApp({ enter: "signed-in" });

type Ctx = Context<PageEnv>;
type Values = { name: string; path: string; description: string; visibility: VisibilityLevel; namespace: string; readme: boolean };
type Errors = Partial<Record<"name" | "path" | "namespace", string>>;

/** The groups in which the person may create a project (create_projects) or a subgroup (admin_group), at most 100, checked for it. */
async function creatableGroups<A extends "create_projects" | "admin_group">(c: Ctx, ability: A): Promise<CheckedGroup<A>[]> {
  const db = getDb(c.env.DB);
  const user = c.var.user;
  const { rows } = await listGroups(db, { userId: user.id, isAdmin: user.isAdmin, membershipOnly: !user.isAdmin }, { orderBy: "path", sort: "asc", limit: 100, offset: 0 });
  // As POST /api/v4/projects and /groups: developers create projects in a group, owners create subgroups (administrators: every group, no query).
  const accesses = await Promise.all(rows.map((g) => groupAccess(c.env, sessionAsker(user), g)));
  return accesses.filter((a) => a.can(ability)).map((a) => a.check(ability));
}

const text = (v: unknown, max: number) => (typeof v === "string" ? v.trim().slice(0, max) : "");
const visibilityOf = (v: unknown): VisibilityLevel => ((VISIBILITIES as readonly string[]).includes(String(v)) ? (v as VisibilityLevel) : "private");

async function readValues(c: Ctx): Promise<Values> {
  const body = await c.req.parseBody();
  return {
    name: text(body.name, 255),
    path: text(body.path, 255),
    description: text(body.description, 2000),
    visibility: visibilityOf(body.visibility),
    namespace: text(body.namespace_id ?? body.parent_id, 20),
    readme: body.initialize_with_readme === "1",
  };
}

/** A refusal of the service that names a field (a taken or reserved path) becomes that field's error. */
function fieldError(err: unknown): Errors | null {
  if (err instanceof AppError && err.code !== "internal" && typeof err.details.field === "string") {
    const field = err.details.field === "name" ? "name" : "path";
    return { [field]: `${field === "name" ? "Name" : "Path"} ${err.message}` };
  }
  return null;
}

function VisibilityField({ value }: { value: VisibilityLevel }) {
  return (
    <fieldset>
      <legend>Visibility level</legend>
      {VISIBILITIES.map((v) => (
        <div>
          <input type="radio" id={`visibility_${v}`} name="visibility" value={v} checked={v === value} />
          <label for={`visibility_${v}`}>{v[0]!.toUpperCase() + v.slice(1)}</label>
        </div>
      ))}
    </fieldset>
  );
}

function FieldError({ id, message }: { id: string; message?: string }) {
  return message ? (
    <p class="field-error" id={id} role="alert">
      {message}
    </p>
  ) : null;
}

/** The fields both create forms share after the name and the namespace: the path, the description and the visibility. */
function PathDescriptionVisibility({ kind, pathLabel, values, errors }: { kind: "project" | "group"; pathLabel: string; values: Values; errors?: Errors }) {
  const noun = kind === "project" ? "Project" : "Group";
  return (
    <>
      <label for={`${kind}_path`}>{pathLabel}</label>
      <p class="hint" id={`${kind}_path_hint`}>
        Letters, digits, "_", "-" and "."; empty: made from the name.
      </p>
      <input type="text" id={`${kind}_path`} name="path" maxlength={255} value={values.path} aria-describedby={`${kind}_path_hint`} />
      <FieldError id={`${kind}_path_error`} message={errors?.path} />
      <label for={`${kind}_description`}>{noun} description (optional)</label>
      <textarea id={`${kind}_description`} name="description" maxlength={2000}>
        {values.description}
      </textarea>
      <VisibilityField value={values.visibility} />
    </>
  );
}

async function projectForm(c: Ctx, values: Values, errors?: Errors) {
  const groups = await creatableGroups(c, "create_projects");
  const user = c.var.user;
  return renderPage(
    c,
    "New project",
    <>
      <h1>New project</h1>
      {errors ? <Flash kind="error" message="The project could not be created. Correct the fields below." /> : null}
      <form method="post" action="/projects" class="card">
        <CsrfField token={await csrfToken(c)} />
        <label for="project_name">Project name</label>
        <input type="text" id="project_name" name="name" required maxlength={255} value={values.name} />
        <FieldError id="project_name_error" message={errors?.name} />
        <label for="project_namespace">Project URL</label>
        <select id="project_namespace" name="namespace_id">
          <option value="" selected={values.namespace === ""}>
            {user.username} (your personal projects)
          </option>
          {groups.map((g) => (
            <option value={String(g.id)} selected={values.namespace === String(g.id)}>
              {g.fullPath}
            </option>
          ))}
        </select>
        <FieldError id="project_namespace_error" message={errors?.namespace} />
        <PathDescriptionVisibility kind="project" pathLabel="Project slug" values={values} errors={errors} />
        <div>
          <input type="checkbox" id="project_readme" name="initialize_with_readme" value="1" checked={values.readme} />
          <label for="project_readme">Initialize repository with a README</label>
        </div>
        <button type="submit">Create project</button>
      </form>
    </>,
    errors ? 422 : 200,
  );
}

forms.get("/projects/new", (c) =>
  projectForm(c, { name: "", path: "", description: "", visibility: "private", namespace: text(c.req.query("namespace_id"), 20), readme: true }),
);

forms.post("/projects", async (c) => {
  const values = await readValues(c);
  const user = c.var.user;
  const path = values.path || pathFromName(values.name);
  if (!values.name) return projectForm(c, values, { name: "Name can't be blank" });
  if (!isValidNamespacePath(path)) return projectForm(c, values, { path: "Path can contain only letters, digits, '_', '-' and '.', and cannot start with '-' or end in '.git' or '.atom'" });
  let namespace: NewProject["namespace"] = { kind: "user", id: user.id, fullPath: user.username };
  if (values.namespace) {
    const group = (await creatableGroups(c, "create_projects")).find((g) => String(g.id) === values.namespace);
    if (!group) return projectForm(c, values, { namespace: "You cannot create projects in this group" });
    namespace = { kind: "group", group };
  }
  try {
    const project = await createProject(c.env, sessionActor(c), {
      name: values.name,
      path,
      namespace,
      visibility: values.visibility,
      description: values.description,
      readme: values.readme,
      creator: user,
    });
    setFlash(c, `Project '${project.name}' was successfully created.`);
    return c.redirect(`/${project.pathWithNamespace}`, 303);
  } catch (err) {
    const errors = fieldError(err);
    if (errors) return projectForm(c, values, errors);
    throw err;
  }
});

async function groupForm(c: Ctx, values: Values, errors?: Errors) {
  const parents = await creatableGroups(c, "admin_group");
  return renderPage(
    c,
    "New group",
    <>
      <h1>{values.namespace ? "New subgroup" : "New group"}</h1>
      {errors ? <Flash kind="error" message="The group could not be created. Correct the fields below." /> : null}
      <form method="post" action="/groups" class="card">
        <CsrfField token={await csrfToken(c)} />
        <label for="group_name">Group name</label>
        <input type="text" id="group_name" name="name" required maxlength={255} value={values.name} />
        <FieldError id="group_name_error" message={errors?.name} />
        <label for="group_parent">Parent group</label>
        <select id="group_parent" name="parent_id">
          <option value="" selected={values.namespace === ""}>
            None (a top-level group)
          </option>
          {parents.map((g) => (
            <option value={String(g.id)} selected={values.namespace === String(g.id)}>
              {g.fullPath}
            </option>
          ))}
        </select>
        <FieldError id="group_parent_error" message={errors?.namespace} />
        <PathDescriptionVisibility kind="group" pathLabel="Group URL" values={values} errors={errors} />
        <button type="submit">Create group</button>
      </form>
    </>,
    errors ? 422 : 200,
  );
}

forms.get("/groups/new", (c) => groupForm(c, { name: "", path: "", description: "", visibility: "private", namespace: text(c.req.query("parent_id"), 20), readme: false }));

forms.post("/groups", async (c) => {
  const values = await readValues(c);
  const path = values.path || pathFromName(values.name);
  if (!values.name) return groupForm(c, values, { name: "Name can't be blank" });
  if (!isValidNamespacePath(path)) return groupForm(c, values, { path: "Path can contain only letters, digits, '_', '-' and '.', and cannot start with '-' or end in '.git' or '.atom'" });
  let parent: CheckedGroup<"admin_group"> | null = null;
  if (values.namespace) {
    const offered = (await creatableGroups(c, "admin_group")).find((g) => String(g.id) === values.namespace);
    // A group that is not offered may still exist: it is not the person's to extend.
    const group = offered ? await findGroup(getDb(c.env.DB), String(offered.id)) : null;
    if (!group) return groupForm(c, values, { namespace: "You cannot create subgroups in this group" });
    parent = (await groupAccess(c.env, sessionAsker(c.var.user), group)).check("admin_group");
  }
  try {
    const group = await createGroup(c.env, sessionActor(c), { name: values.name, path, parent, visibility: values.visibility, description: values.description });
    setFlash(c, `Group '${group.name}' was successfully created.`);
    return c.redirect(`/groups/${group.fullPath}`, 303);
  } catch (err) {
    const errors = fieldError(err);
    if (errors) return groupForm(c, values, errors);
    throw err;
  }
});

export default forms;
