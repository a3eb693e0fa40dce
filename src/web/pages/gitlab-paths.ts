import type { PageEnv } from "../page";
import { pageApp } from "../door";

/**
 * GitLab's own paths for pages this service keeps elsewhere: a person (or a guide written for
 * GitLab) who opens one is sent to ours, query kept. 301: the move is permanent.
 */
const gitlabPaths = pageApp({ enter: "anyone" });

export const GITLAB_PAGE_REDIRECTS: Record<string, string> = {
  "/oauth/applications": "/profile/applications",
  "/-/user_settings/applications": "/profile/applications",
  "/-/user_settings/personal_access_tokens": "/profile/personal_access_tokens",
  "/-/user_settings/active_sessions": "/profile/active_sessions",
  "/-/user_settings/password/edit": "/profile/password/edit",
  "/-/profile/two_factor_auth": "/profile/two_factor_auth",
};

for (const [from, to] of Object.entries(GITLAB_PAGE_REDIRECTS)) {
  gitlabPaths.get(from, (c) => c.redirect(`${to}${new URL(c.req.url).search}`, 301));
}

export default gitlabPaths;
