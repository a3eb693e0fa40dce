import { ConnectGuide } from "./connect-guide";
import { issuerOf } from "../../http/issuer";
import { type Context } from "hono";
import { getConfig } from "../../config";
import { findApplicationById, listApplications, type ApplicationRow } from "../../db/applications";
import { getDb } from "../../db/client";
import type { ApplicationErrors } from "../../domain/application-input";
import { listAuthorizedApplications, revokeUserAuthorizationsForApplication } from "../../services/authorizations";
import { createApplication, deleteApplication, renewApplicationSecret, updateApplication } from "../../services/applications";
import { CsrfField, Flash, renderPage, sessionActor, setFlash, takeFlash, type PageEnv } from "../page";
import { csrfToken } from "../session";
import {
  ApplicationDetails,
  ApplicationForm,
  ApplicationsTable,
  AuthorizedApplications,
  EMPTY_FORM,
  formValuesOf,
  type AppFormValues,
} from "./application-views";
import { applicationFieldsOf, readApplicationForm } from "../application-form";
import { whenParamIs } from "../../http/router";
import { pathTail } from "../../http/path-decoding";
import { pageApp } from "../door";

/**
 * /profile/applications: the user's own OAuth applications (create, show, edit, renew the
 * secret, delete) and, below, the applications the user has authorized (revoke).
 */
const apps = pageApp({ enter: "signed-in" });

type Ctx = Context<PageEnv>;

async function indexPage(c: Ctx, opts: { values?: AppFormValues; errors?: ApplicationErrors } = {}) {
  const user = c.var.user;
  const [own, authorized] = await Promise.all([listApplications(getDb(c.env.DB), user.id), listAuthorizedApplications(c.env, user.id)]);
  const token = await csrfToken(c);
  return renderPage(
    c,
    "Applications",
    <>
      <h1>Applications</h1>
      <Flash kind="notice" message={takeFlash(c)} />
      <p>Manage applications that can use this service as an OAuth provider, and applications you have authorized to use your account.</p>
      <h2>Your applications</h2>
      <ApplicationsTable apps={own} />
      <h2 id="new-application">Add new application</h2>
      {opts.errors ? <Flash kind="error" message="The application could not be saved. Correct the fields below." /> : null}
      <ApplicationForm action="/profile/applications" submit="Save application" token={token} values={opts.values ?? EMPTY_FORM} errors={opts.errors} defaultLifetime={getConfig(c.env).accessTokenTtlSeconds} />
      <AuthorizedApplications list={authorized} token={token} />
    </>,
    opts.errors ? 422 : 200,
  );
}

async function showPage(c: Ctx, app: ApplicationRow, opts: { secret?: string; notice?: string | null; status?: 200 | 201 } = {}) {
  return renderPage(
    c,
    `Application: ${app.name}`,
    <>
      <h1>Application: {app.name}</h1>
      <Flash kind="notice" message={opts.notice ?? takeFlash(c)} />
      <ApplicationDetails app={app} secret={opts.secret} token={await csrfToken(c)} />
      <ConnectGuide app={app} issuer={issuerOf(c)} />
      <p>
        <a href="/profile/applications">Back to applications</a>
      </p>
    </>,
    opts.status ?? 200,
  );
}

/** The user's own application, or null (another user's application is as good as missing). */
async function ownApplication(c: Ctx): Promise<ApplicationRow | null> {
  const id = Number(c.req.param("id"));
  if (!Number.isSafeInteger(id) || id <= 0) return null;
  const app = await findApplicationById(getDb(c.env.DB), id);
  return app && app.ownerId === c.var.user.id ? app : null;
}

async function notFoundPage(c: Ctx) {
  return renderPage(c, "Not found", <><h1>Application not found</h1><p><a href="/profile/applications">Back to applications</a></p></>, 404);
}

apps.get("/profile/applications", (c) => indexPage(c));

apps.post("/profile/applications", async (c) => {
  const values = await readApplicationForm(c);
  const created = await createApplication(c.env, sessionActor(c), { ...applicationFieldsOf(values), ownerId: c.var.user.id });
  if (!created.ok) return indexPage(c, { values, errors: created.errors });
  // The secret is shown in this response only; storage has its hash.
  return showPage(c, created.row, { secret: created.secret, notice: "The application was created.", status: 201 });
});

apps.get("/profile/applications/:id", async (c) => {
  const app = await ownApplication(c);
  return app ? showPage(c, app) : notFoundPage(c);
});

async function editPage(c: Ctx, app: ApplicationRow, values: AppFormValues, errors?: ApplicationErrors) {
  return renderPage(
    c,
    `Edit application: ${app.name}`,
    <>
      <h1>Edit application: {app.name}</h1>
      {errors ? <Flash kind="error" message="The application could not be saved. Correct the fields below." /> : null}
      <ApplicationForm action={`/profile/applications/${app.id}`} submit="Save application" token={await csrfToken(c)} values={values} errors={errors} defaultLifetime={getConfig(c.env).accessTokenTtlSeconds} />
      <p>
        <a href={`/profile/applications/${app.id}`}>Cancel</a>
      </p>
    </>,
    errors ? 422 : 200,
  );
}

apps.get("/profile/applications/:id/edit", async (c) => {
  const app = await ownApplication(c);
  return app ? editPage(c, app, formValuesOf(app)) : notFoundPage(c);
});

apps.post("/profile/applications/:id", async (c) => {
  const app = await ownApplication(c);
  if (!app) return notFoundPage(c);
  const values = await readApplicationForm(c);
  const updated = await updateApplication(c.env, sessionActor(c), app, applicationFieldsOf(values));
  if (!updated.ok) return editPage(c, app, values, updated.errors);
  setFlash(c, "The application was updated.");
  return c.redirect(`/profile/applications/${app.id}`, 303);
});

apps.post("/profile/applications/:id/renew", async (c) => {
  const app = await ownApplication(c);
  if (!app) return notFoundPage(c);
  const renewed = await renewApplicationSecret(c.env, sessionActor(c), app);
  if (!renewed) return notFoundPage(c);
  return showPage(c, renewed.row, { secret: renewed.secret, notice: "The secret was renewed; the old one no longer works." });
});

/** Deleting asks first on a page of its own, so it works without JavaScript. */
apps.get("/profile/applications/:id/delete", async (c) => {
  const app = await ownApplication(c);
  if (!app) return notFoundPage(c);
  return renderPage(
    c,
    `Delete application: ${app.name}`,
    <>
      <h1>Delete application {app.name}?</h1>
      <p>Every token it holds stops working at once, and users will have to authorize it again. This cannot be undone.</p>
      <form method="post" action={`/profile/applications/${app.id}/delete`} class="actions">
        <CsrfField token={await csrfToken(c)} />
        <button type="submit" class="danger">
          Delete application
        </button>
        <a class="button secondary" href={`/profile/applications/${app.id}`}>
          Cancel
        </a>
      </form>
    </>,
  );
});

apps.post("/profile/applications/:id/delete", async (c) => {
  const app = await ownApplication(c);
  if (!app) return notFoundPage(c);
  await deleteApplication(c.env, sessionActor(c), app);
  setFlash(c, `The application ${app.name} was deleted.`);
  return c.redirect("/profile/applications", 303);
});

// Below the pattern of an application's own routes, as a tail: RegExpRouter cannot hold the literal
// "authorized" beside `:id` (src/http/router.ts).
apps.post("/profile/applications/:id/*", whenParamIs<PageEnv>("id", "authorized", async (c, next) => {
  const tail = pathTail(c.req.path, 2, 3);
  if (!tail || tail[1] !== "revoke" || !/^[0-9]+$/.test(tail[0])) return next();
  const id = Number(tail[0]);
  const app = await findApplicationById(getDb(c.env.DB), id);
  const n = await revokeUserAuthorizationsForApplication(c.env, c.var.user.id, id);
  setFlash(c, n > 0 ? `Access of ${app?.name ?? "the application"} was revoked.` : "Nothing to revoke.");
  return c.redirect("/profile/applications", 303);
}));

export default apps;
