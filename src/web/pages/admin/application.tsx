import { ConnectGuide } from "../connect-guide";
import { issuerOf } from "../../../http/issuer";
import { type Context } from "hono";
import { getConfig } from "../../../config";
import type { ApplicationRow } from "../../../db/applications";
import type { ApplicationErrors } from "../../../domain/application-input";
import { deleteApplication, findInstanceApplication, renewApplicationSecret, updateApplication } from "../../../services/applications";
import { applicationFieldsOf, readApplicationForm } from "../../application-form";
import { CsrfField, Flash, sessionActor, renderPage, setFlash, takeFlash, type PageEnv } from "../../page";
import { csrfToken } from "../../session";
import { notFoundPage } from "../not-found";
import { ApplicationDetails, ApplicationForm, formValuesOf, type AppFormValues } from "../application-views";
import { pageApp } from "../../door";

/**
 * /admin/applications/:id: one instance-wide application: details, edit (with the trusted flag),
 * renew secret (shown once), delete after a confirmation page. Each change goes through
 * src/services/applications.ts, as the admin API's do, and is audited there.
 */
const adminApplication = pageApp({ enter: "administrator" });
type Ctx = Context<PageEnv>;
const BASE = "/admin/applications";
const ID = "/admin/applications/:id";

export async function applicationPage(c: Ctx, app: ApplicationRow, opts: { secret?: string; notice?: string | null; status?: 200 | 201 } = {}) {
  return renderPage(
    c,
    `${app.name} · Admin area`,
    <>
      <h1>
        Application: <bdi>{app.name}</bdi>
      </h1>
      <Flash kind="notice" message={opts.notice ?? takeFlash(c)} />
      <ApplicationDetails app={app} secret={opts.secret} token={await csrfToken(c)} base={BASE} />
      <ConnectGuide app={app} issuer={issuerOf(c)} />
      <p>
        <a href={BASE}>Back to applications</a>
      </p>
    </>,
    opts.status ?? 200,
  );
}

/** The application of the URL, or null: a user's own application is not the admin area's (as the API). */
async function target(c: Ctx): Promise<ApplicationRow | null> {
  const id = Number(c.req.param("id"));
  return Number.isSafeInteger(id) && id > 0 ? findInstanceApplication(c.env, id) : null;
}

async function editPage(c: Ctx, app: ApplicationRow, values: AppFormValues, errors?: ApplicationErrors) {
  return renderPage(
    c,
    `Edit ${app.name} · Admin area`,
    <>
      <h1>
        Edit application: <bdi>{app.name}</bdi>
      </h1>
      {errors ? <Flash kind="error" message="The application could not be saved. Correct the fields below." /> : null}
      <ApplicationForm
        action={`${BASE}/${app.id}`}
        submit="Save application"
        token={await csrfToken(c)}
        values={values}
        errors={errors}
        defaultLifetime={getConfig(c.env).accessTokenTtlSeconds}
      />
      <p>
        <a href={`${BASE}/${app.id}`}>Cancel</a>
      </p>
    </>,
    errors ? 422 : 200,
  );
}

adminApplication.get(ID, async (c) => {
  const app = await target(c);
  return app ? applicationPage(c, app) : notFoundPage(c);
});

adminApplication.get(`${ID}/edit`, async (c) => {
  const app = await target(c);
  return app ? editPage(c, app, formValuesOf(app)) : notFoundPage(c);
});

adminApplication.post(ID, async (c) => {
  const app = await target(c);
  if (!app) return notFoundPage(c);
  const values = await readApplicationForm(c, { trusted: true });
  const updated = await updateApplication(c.env, sessionActor(c), app, applicationFieldsOf(values));
  if (!updated.ok) return editPage(c, app, values, updated.errors);
  setFlash(c, "The application was updated.");
  return c.redirect(`${BASE}/${app.id}`, 303);
});

adminApplication.post(`${ID}/renew`, async (c) => {
  const app = await target(c);
  const renewed = app ? await renewApplicationSecret(c.env, sessionActor(c), app) : null;
  if (!renewed) return notFoundPage(c);
  return applicationPage(c, renewed.row, { secret: renewed.secret, notice: "The secret was renewed; the old one no longer works." });
});

/** Deleting asks first on a page of its own, so it works without JavaScript. */
adminApplication.get(`${ID}/delete`, async (c) => {
  const app = await target(c);
  if (!app) return notFoundPage(c);
  return renderPage(
    c,
    `Delete ${app.name} · Admin area`,
    <>
      <h1>
        Delete application <bdi>{app.name}</bdi>?
      </h1>
      <p>Every token it holds stops working at once, and users will have to authorize it again. This cannot be undone.</p>
      <form method="post" action={`${BASE}/${app.id}/delete`} class="actions">
        <CsrfField token={await csrfToken(c)} />
        <button type="submit" class="danger">
          Delete application
        </button>
        <a class="button secondary" href={`${BASE}/${app.id}`}>
          Cancel
        </a>
      </form>
    </>,
  );
});

adminApplication.post(`${ID}/delete`, async (c) => {
  const app = await target(c);
  if (!app) return notFoundPage(c);
  await deleteApplication(c.env, sessionActor(c), app);
  setFlash(c, `The application ${app.name} was deleted.`);
  return c.redirect(BASE, 303);
});

export default adminApplication;
