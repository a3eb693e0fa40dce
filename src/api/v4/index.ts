import { Hono } from "hono";
import type { AppEnv } from "../../env";
import deprecations from "./deprecations";
import groups from "./groups";
import members from "./members";
import projects from "./projects";
import runnerRegistration from "./runner-registration";
import runners from "./runners";
import packages from "./packages";
import registry from "./registry";
import deployTokens from "./deploy-tokens";
import mergeRequests from "./merge-requests";
import statusChecks from "./status-checks";
import iterations from "./iterations";
import managedLicenses from "./managed-licenses";
import ciLint from "./ci-lint";
import plugins from "./plugins";
import metadata from "./metadata";
import { renderApiError } from "./errors";
import { answerUnmatched } from "./unmatched";
import user from "./user";
import users from "./users";
import userModeration from "./user-moderation";
import auditEvents from "./audit-events";
import applications from "./applications";
import personalAccessTokens from "./personal-access-tokens";
import oidcSigningKeys from "./oidc-signing-keys";

/** /api/v4: one file per resource, joined here. */
const api = new Hono<AppEnv>();
api.onError(renderApiError);

api.route("/", deprecations);
api.route("/", user);
api.route("/", users);
api.route("/", userModeration);
api.route("/", auditEvents);
api.route("/", applications);
api.route("/", personalAccessTokens);
api.route("/", groups);
api.route("/", projects);
api.route("/", members);
api.route("/", runners);
api.route("/", runnerRegistration);
api.route("/", packages);
api.route("/", registry);
api.route("/", deployTokens);
api.route("/", mergeRequests);
api.route("/", statusChecks);
api.route("/", iterations);
api.route("/", managedLicenses);
api.route("/", ciLint);
api.route("/", plugins);
api.route("/", metadata);
api.route("/", oidcSigningKeys);
// Last: answers what no route above took (GitLab's JSON 404 and 405).
answerUnmatched(api);

export default api;
