import { type Context } from "hono";
import { AppError, reasonOf } from "../../../domain/errors";
import { isValidUsername } from "../../../domain/namespace-paths";
import { getDb } from "../../../db/client";
import { findUserByLogin, type UserRow } from "../../../db/users";
import { issuerOf } from "../../../http/issuer";
import { updateUser } from "../../../services/accounts/user-edit";
import { CsrfField, Flash, renderPage, sessionActor, setFlash, type PageEnv } from "../../page";
import { csrfToken } from "../../session";
import { notFoundPage } from "../not-found";
import { pageApp } from "../../door";

/**
 * /admin/users/:username/edit (GitLab's admin area, Edit user): name, username, email (with
 * "skip reconfirmation"), administrator and a new password, saved through the service PUT
 * /api/v4/users/:id uses (src/services/accounts/user-edit.ts), so its rules, its expiring password
 * and its audit row are the API's. The form posts to /admin/users/:username, the path GitLab's
 * form sends its PATCH to (a page form can only POST).
 */
const adminUserEdit = pageApp({ enter: "administrator" });
type Ctx = Context<PageEnv>;

type Values = { name: string; username: string; email: string; admin: boolean; skipReconfirmation: boolean };
type Errors = Record<string, string[]>;
const TEXT_FIELDS = [
  ["name", "Name", "text"],
  ["username", "Username", "text"],
  ["email", "Email", "email"],
] as const;

const FieldError = (props: { label: string; messages?: string[] }) =>
  props.messages ? (
    <p class="field-error" role="alert">
      {props.label} {props.messages.join(", ")}
    </p>
  ) : null;

async function form(c: Ctx, user: UserRow, values: Values, errors?: Errors) {
  const base = `/admin/users/${encodeURIComponent(user.username)}`;
  return renderPage(
    c,
    `Edit ${user.username} · Admin area`,
    <>
      <h1>
        Edit <span class="muted">@{user.username}</span>
      </h1>
      {errors ? <Flash kind="error" message="The user could not be saved. Correct the fields below." /> : null}
      <form method="post" action={base} class="card">
        <CsrfField token={await csrfToken(c)} />
        {TEXT_FIELDS.map(([field, label, type]) => (
          <>
            <label for={`user_${field}`}>{label}</label>
            <input type={type} id={`user_${field}`} name={field} required maxlength={255} value={values[field]} autocomplete="off" />
            <FieldError label={label} messages={errors?.[field]} />
          </>
        ))}
        <div class="checkbox">
          <input type="checkbox" id="user_skip_reconfirmation" name="skip_reconfirmation" value="1" checked={values.skipReconfirmation} aria-describedby="user_skip_reconfirmation_hint" />
          <label for="user_skip_reconfirmation">Skip reconfirmation</label>
          <p id="user_skip_reconfirmation_hint" class="hint">
            A new email takes effect at once. Otherwise it waits until the user opens the confirmation link mailed to it.
          </p>
        </div>
        <div class="checkbox">
          <input type="checkbox" id="user_admin" name="admin" value="1" checked={values.admin} />
          <label for="user_admin">Administrator</label>
        </div>
        <label for="user_password">New password</label>
        <input type="password" id="user_password" name="password" maxlength={1024} autocomplete="new-password" aria-describedby="user_password_help" />
        <p id="user_password_help" class="muted">
          Leave empty to keep the current password. A password set here expires at once: the user must choose their own at the next sign-in, and is signed out everywhere.
        </p>
        <FieldError label="Password" messages={errors?.password} />
        <button type="submit">Save changes</button>
      </form>
      <p>
        <a href={base}>Back to @{user.username}</a>
      </p>
    </>,
    errors ? 422 : 200,
  );
}

const valuesOf = (user: UserRow): Values => ({ name: user.name, username: user.username, email: user.email, admin: user.isAdmin, skipReconfirmation: false });

adminUserEdit.get("/admin/users/:username/edit", async (c) => {
  const user = await findUserByLogin(getDb(c.env.DB), c.req.param("username"));
  if (!user) return notFoundPage(c);
  return form(c, user, valuesOf(user));
});

/** The page's own checks of what the service takes as given (the API's zod schema does them there). */
function formErrors(values: Values, password: string): Errors {
  const errors: Errors = {};
  for (const k of ["name", "username", "email"] as const) if (!values[k]) errors[k] = ["can't be blank"];
  if (values.username && !isValidUsername(values.username)) errors.username = ["is invalid"];
  if (values.email && !/^[^@\s]+@[^@\s]+$/.test(values.email)) errors.email = ["is invalid"];
  if (password && password.length > 1024) errors.password = ["is too long"];
  return errors;
}

/** A refusal of the service as the field it names, or null for one the form has no place for. */
function serviceRefusal(e: unknown): Errors | null {
  if (reasonOf(e, ["weak"])) return { password: [(e as Error).message.replace(/^Password /, "")] };
  if (!(e instanceof AppError)) return null;
  if (e.details.reason === "registry_tags") return { username: [e.message.replace(/^Username /, "")] };
  const field = e.details.field;
  if ((field === "username" || field === "email") && (e.code === "conflict" || e.code === "invalid")) return { [field]: [e.message] };
  return null;
}

adminUserEdit.post("/admin/users/:username", async (c) => {
  const user = await findUserByLogin(getDb(c.env.DB), c.req.param("username"));
  if (!user) return notFoundPage(c);
  const body = await c.req.parseBody();
  const str = (k: string) => (typeof body[k] === "string" ? (body[k] as string).trim().slice(0, 255) : "");
  const values: Values = { name: str("name"), username: str("username"), email: str("email"), admin: body.admin === "1", skipReconfirmation: body.skip_reconfirmation === "1" };
  const password = typeof body.password === "string" ? body.password : "";
  const errors = formErrors(values, password);
  if (Object.keys(errors).length) return form(c, user, values, errors);
  let saved: UserRow;
  try {
    // A confirmation link names the address people use (ISSUER), else this request's origin.
    saved = await updateUser(c.env, issuerOf(c), sessionActor(c), user.id, {
      name: values.name,
      username: values.username,
      email: values.email,
      skipReconfirmation: values.skipReconfirmation,
      admin: values.admin,
      ...(password ? { password } : {}),
    });
  } catch (e) {
    const refusal = serviceRefusal(e);
    if (!refusal) throw e;
    return form(c, user, values, refusal);
  }
  const pendingEmail = values.email.toLowerCase() !== saved.email.toLowerCase();
  setFlash(c, pendingEmail ? `User was successfully updated. A confirmation mail was sent to ${values.email}.` : "User was successfully updated.");
  return c.redirect(`/admin/users/${encodeURIComponent(saved.username)}`, 303);
});

export default adminUserEdit;
