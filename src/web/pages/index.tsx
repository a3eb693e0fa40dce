import { Hono, type Context } from "hono";
import assets from "../assets";
import demoSpa from "../demo-spa";
import { renderPage, type PageEnv } from "../page";
import { pageSecurityHeaders, requireCsrf } from "../security";
import { pageRefusal } from "../refusal";
import activeSessions from "./active-sessions";
import admin from "./admin";
import applications from "./applications";
import authenticationLog from "./authentication-log";
import password from "./password";
import passwordReset from "./password-reset";
import mailOutbox from "./mail-outbox";
import profileEmail from "./profile-email";
import containerRegistry from "./container-registry";
import deployTokens from "./deploy-tokens";
import dashboard from "./dashboard";
import deprecations from "./deprecations";
import explore from "./explore";
import project from "./project";
import groupPages from "./group";
import namespaceForms from "./namespace-forms";
import projectSettings from "./project-settings";
import projectRecords from "./project-records";
import repositoryPages from "./repository";
import userProfile from "./user-profile";
import home from "./home";
import help from "./help";
import gitlabPaths from "./gitlab-paths";
import personalAccessTokens from "./personal-access-tokens";
import signIn from "./sign-in";
import twoFactor from "./two-factor";
import devicePages from "../../oauth/device/pages";
import endSessionPages from "../../oauth/oidc/end-session";
import { logUnexpectedError } from "../../observability/error-log";

/**
 * Every page a person uses. Security headers and CSRF protection apply to the page paths only,
 * never to the API, the OAuth endpoints or git (which carry tokens, not cookies).
 */
const pages = new Hono<PageEnv>();

/** The pages family's error renderer: a refusal page for client errors, a plain page for the rest. */
export async function renderPagesError(err: Error, c: Context): Promise<Response> {
  const refusal = pageRefusal(err, c);
  if (refusal) {
    return renderPage(
      c,
      "Request refused",
      <>
        <h1>Request refused</h1>
        <div class="flash error" role="alert">
          {refusal.message}
        </div>
        <p>
          <a href="/">Back to the home page</a>
        </p>
      </>,
      refusal.status,
    );
  }
  logUnexpectedError("pages", err, c);
  return renderPage(c, "Something went wrong", <h1>Something went wrong. Try again later.</h1>, 500);
}
pages.onError(renderPagesError);

export const PAGE_PATHS = ["/", "/users/*", "/profile/*", "/profile", "/help", "/help/*", "/-/demo/*", "/-/mail", "/-/mail/*", "/admin", "/admin/*", "/dashboard/*", "/groups", "/groups/*", "/projects", "/projects/*", "/explore", "/explore/*", "/oauth/device", "/oauth/device/*"] as const;
for (const path of PAGE_PATHS) pages.use(path, pageSecurityHeaders(), requireCsrf);
// RP-Initiated Logout's end-session endpoint: a relying party sends the browser here from its own
// site (GET or a cross-site form POST), so no CSRF check; its confirmation form posts to
// /oauth/logout/confirm, which has it. The form's answer redirects to the application, so no
// form-action (as on the consent page).
pages.use("/oauth/logout", pageSecurityHeaders({ formAction: false }));
pages.use("/oauth/logout/confirm", pageSecurityHeaders({ formAction: false }), requireCsrf);

pages.route("/", assets);
pages.route("/", demoSpa);
pages.route("/", home);
pages.route("/", help);
pages.route("/", gitlabPaths);
pages.route("/", signIn);
pages.route("/", twoFactor);
pages.route("/", applications);
pages.route("/", personalAccessTokens);
pages.route("/oauth", devicePages);
pages.route("/oauth", endSessionPages);
pages.route("/", deprecations);
pages.route("/", activeSessions);
pages.route("/", password);
pages.route("/", passwordReset);
pages.route("/", mailOutbox);
pages.route("/", profileEmail);
pages.route("/", authenticationLog);
pages.route("/", admin);
pages.route("/", containerRegistry);
pages.route("/", deployTokens);
pages.route("/", dashboard);
pages.route("/", explore);
pages.route("/", namespaceForms);
pages.route("/", groupPages);
pages.route("/", projectSettings);
pages.route("/", projectRecords);
pages.route("/", repositoryPages);
// Last: its path pattern (/<namespace>/<project>) would otherwise shadow the pages above.
pages.route("/", project);
// After every page: a user's profile sits at the top level (/<username>), where any other page wins.
pages.route("/", userProfile);

export default pages;
