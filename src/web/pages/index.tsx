import { Hono, type Context } from "hono";
import assets from "../assets";
import demoSpa from "../demo-spa";
import { renderPage, type PageEnv } from "../page";
import { isAbilityRefusal, pageRefusal } from "../refusal";
import { signInFirst } from "../door";
import { currentUser } from "../session";
import { notFoundPage } from "./not-found";
import activeSessions from "./active-sessions";
import admin from "./admin";
import applications from "./applications";
import authenticationLog from "./authentication-log";
import password from "./password";
import passwordReset from "./password-reset";
import mailOutbox from "./mail-outbox";
import profileEmail from "./profile-email";
import containerRegistry, { registryActions } from "./container-registry";
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
import { logUnexpectedError } from "../../observability/error-log";

/**
 * Every page a person uses. Each sub-app declares its page door (src/web/door.ts: security
 * headers, CSRF and the Origin check on unsafe methods, who may enter), carried by each of its
 * routes; nothing here guards by path, and the API, the OAuth endpoints and git (which carry
 * tokens, not cookies) never pass a page door.
 */
const pages = new Hono<PageEnv>();

/** The pages family's error renderer: a refusal page for client errors, a plain page for the rest. */
export async function renderPagesError(err: Error, c: Context): Promise<Response> {
  // GitLab sends an anonymous visitor to sign in rather than say a project or group is not there
  // or not theirs: after sign-in they may see it (a page behind the `visitor` door, src/web/door.ts).
  if (isAbilityRefusal(err) && (c.req.method === "GET" || c.req.method === "HEAD") && !(await currentUser(c))) return signInFirst(c);
  const refusal = pageRefusal(err, c);
  // A project or group the viewer may not see (or that is not there) answers as a mistyped address
  // does: the ordinary 404 page, so that no page of its own says something is hidden there.
  if (refusal?.status === 404 && isAbilityRefusal(err)) return notFoundPage(c);
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


pages.route("/", assets);
pages.route("/", demoSpa);
pages.route("/", home);
pages.route("/", help);
pages.route("/", gitlabPaths);
pages.route("/", signIn);
pages.route("/", twoFactor);
pages.route("/", applications);
pages.route("/", personalAccessTokens);
pages.route("/", deprecations);
pages.route("/", activeSessions);
pages.route("/", password);
pages.route("/", passwordReset);
pages.route("/", mailOutbox);
pages.route("/", profileEmail);
pages.route("/", authenticationLog);
pages.route("/", admin);
pages.route("/", containerRegistry);
pages.route("/", registryActions);
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
