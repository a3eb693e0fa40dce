import { type Context } from "hono";
import { getConfig } from "../../../config";
import { listInstanceApplicationsPage } from "../../../db/applications";
import { getDb } from "../../../db/client";
import type { ApplicationErrors } from "../../../domain/application-input";
import { registeredUris } from "../../../domain/redirect-uri";
import { createApplication } from "../../../services/applications";
import { applicationFieldsOf, readApplicationForm } from "../../application-form";
import { TableHead } from "../../components";
import { Flash, sessionActor, renderPage, takeFlash, type PageEnv } from "../../page";
import { csrfToken } from "../../session";
import { ApplicationForm, ClientKindBadge, EMPTY_FORM, type AppFormValues } from "../application-views";
import { applicationPage } from "./application";
import { whenParamIs } from "../../../http/router";
import { Pager, pageNumber } from "../../namespace-lists";
import { pageApp } from "../../door";

/**
 * /admin/applications: the instance-wide applications (GitLab's Admin area → Applications), the
 * ones `POST /api/v4/applications` creates and the ones clients registered themselves (marked);
 * creating one shows its secret once. PER_PAGE a page, newest first, with page links.
 */
const adminApplications = pageApp({ enter: "administrator" });
type Ctx = Context<PageEnv>;
const PER_PAGE = 50;

adminApplications.get("/admin/applications", async (c) => {
  const page = pageNumber(c.req.query("page"));
  const { rows: apps, hasNext } = await listInstanceApplicationsPage(getDb(c.env.DB), { offset: (page - 1) * PER_PAGE, limit: PER_PAGE });
  return renderPage(
    c,
    "Applications · Admin area",
    <>
      <h1>Applications</h1>
      <Flash kind="notice" message={takeFlash(c)} />
      <p>
        <a class="button" href="/admin/applications/new">
          New application
        </a>
      </p>
      {apps.length === 0 ? (
        <p class="muted">No instance-wide applications yet.</p>
      ) : (
        <table id="admin-applications">
          <TableHead columns={["Name", "Application ID", "Callback URL", "Flags"]} />
          <tbody>
            {apps.map((app) => (
              <tr>
                <td>
                  <a href={`/admin/applications/${app.id}`}>
                    <bdi>{app.name}</bdi>
                  </a>
                </td>
                <td>
                  <code class="id">{app.uid}</code>
                </td>
                <td>
                  {registeredUris(app.redirectUri).map((u) => (
                    <div class="id">{u}</div>
                  ))}
                </td>
                <td>
                  {app.trusted ? <span class="badge">Trusted</span> : null}
                  <span class="badge">{app.confidential ? "Confidential" : "Public"}</span>
                  <ClientKindBadge app={app} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Pager path="/admin/applications" page={page} hasNext={hasNext} />
    </>,
  );
});

async function newPage(c: Ctx, values: AppFormValues, errors?: ApplicationErrors) {
  return renderPage(
    c,
    "New application · Admin area",
    <>
      <h1>New application</h1>
      {errors ? <Flash kind="error" message="The application could not be saved. Correct the fields below." /> : null}
      <ApplicationForm
        action="/admin/applications"
        submit="Save application"
        token={await csrfToken(c)}
        values={values}
        errors={errors}
        defaultLifetime={getConfig(c.env).accessTokenTtlSeconds}
      />
      <p>
        <a href="/admin/applications">Cancel</a>
      </p>
    </>,
    errors ? 422 : 200,
  );
}

// "new" sits under the pattern of an application's page (RegExpRouter, src/http/router.ts).
adminApplications.get("/admin/applications/:id", whenParamIs<PageEnv>("id", "new", (c) => newPage(c, { ...EMPTY_FORM, trusted: false })));

adminApplications.post("/admin/applications", async (c) => {
  const values = await readApplicationForm(c, { trusted: true });
  const created = await createApplication(c.env, sessionActor(c), { ...applicationFieldsOf(values), ownerId: null });
  if (!created.ok) return newPage(c, values, created.errors);
  // The secret is shown in this response only; storage has its hash.
  return applicationPage(c, created.row, { secret: created.secret, notice: "The application was created.", status: 201 });
});

export default adminApplications;
