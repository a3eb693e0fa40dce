import { type Context } from "hono";
import { createUserAccount } from "../../../services/accounts/user-create";
import { CsrfField, Flash, renderPage, setFlash, type PageEnv } from "../../page";
import { csrfToken } from "../../session";
import { whenParamIs } from "../../../http/router";
import { pageApp } from "../../door";

/**
 * /admin/users/new (GitLab's admin area, New user): an account made through the service POST
 * /api/v4/users uses (src/services/accounts/user-create.ts), so the username, password and
 * uniqueness rules and their words are the API's. Registered before /admin/users/:username.
 */
const adminUserNew = pageApp({ enter: "administrator" });

type Values = { name: string; username: string; email: string; admin: boolean };
const FIELDS = [
  ["name", "Name", "text"],
  ["username", "Username", "text"],
  ["email", "Email", "email"],
  ["password", "Password", "password"],
] as const;

async function form(c: Context<PageEnv>, values: Values, errors?: Record<string, string[]>) {
  return renderPage(
    c,
    "New user · Admin area",
    <>
      <h1>New user</h1>
      {errors ? <Flash kind="error" message="The user could not be created. Correct the fields below." /> : null}
      <form method="post" action="/admin/users" class="card">
        <CsrfField token={await csrfToken(c)} />
        {FIELDS.map(([field, label, type]) => (
          <>
            <label for={`user_${field}`}>{label}</label>
            <input type={type} id={`user_${field}`} name={field} required maxlength={255} value={field === "password" ? "" : values[field]} autocomplete={type === "password" ? "new-password" : "off"} />
            {errors?.[field] ? (
              <p class="field-error" role="alert">
                {label} {errors[field]!.join(", ")}
              </p>
            ) : null}
          </>
        ))}
        <div class="checkbox">
          <input type="checkbox" id="user_admin" name="admin" value="1" checked={values.admin} />
          <label for="user_admin">Administrator</label>
        </div>
        <button type="submit">Create user</button>
      </form>
      <p>
        <a href="/admin/users">Back to users</a>
      </p>
    </>,
    errors ? 422 : 200,
  );
}

// RegExpRouter cannot hold /admin/users/new beside /admin/users/:username (src/http/router.ts, whenParamIs).
adminUserNew.get("/admin/users/:username", whenParamIs<PageEnv>("username", "new", (c) => form(c, { name: "", username: "", email: "", admin: false })));

// GitLab's form posts to /admin/users.
adminUserNew.post("/admin/users", async (c) => {
  const body = await c.req.parseBody();
  const str = (k: string) => (typeof body[k] === "string" ? (body[k] as string).trim().slice(0, 255) : "");
  const values: Values = { name: str("name"), username: str("username"), email: str("email"), admin: body.admin === "1" };
  const password = typeof body.password === "string" ? body.password.slice(0, 1024) : "";
  const missing = Object.fromEntries((["name", "username", "email"] as const).filter((k) => !values[k]).map((k) => [k, ["can't be blank"]]));
  if (!/^[^@\s]+@[^@\s]+$/.test(values.email) && values.email) missing.email = ["is invalid"];
  if (Object.keys(missing).length) return form(c, values, missing);
  const created = await createUserAccount(c.env, { ...values, password });
  if (!created.ok) return form(c, values, created.errors);
  setFlash(c, `User @${created.user.username} was successfully created.`);
  return c.redirect(`/admin/users/${encodeURIComponent(created.user.username)}`, 303);
});

export default adminUserNew;
