import type { Page } from "playwright-core";
import { apiCall, PASSWORD, passwordGrant, registerApplication, rootToken, signIn, unique } from "./pages-support";

/**
 * Every page a person can open, in one list: the layout test (pages-layout.test.ts) opens each at a
 * phone's and a desktop's width and screenshots it. A new page is added here, once.
 *
 * `who`: opened by a visitor, or by the signed-in administrator that `preparePages` makes (an
 * administrator sees every page; pages whose content differs by role are also tested by role in
 * test/web/*.test.ts).
 */
export interface PageEntry {
  name: string;
  who: "visitor" | "admin";
  path: (f: Fixtures) => string;
}

/** What the pages need to have something to show: a user, a project, applications. */
export interface Fixtures {
  admin: { id: number; username: string; password: string };
  other: { id: number; username: string };
  projectPath: string;
  publicProjectPath: string;
  profileAppPath: string;
  profileClientId: string;
  adminAppId: number;
}

const LONG_REDIRECT = "http://127.0.0.1:9/a/very/long/callback/path/that/should/wrap/on/a/phone";

export const PAGES: readonly PageEntry[] = [
  { name: "sign-in", who: "visitor", path: () => "/users/sign_in" },
  { name: "home-visitor", who: "visitor", path: () => "/" },
  { name: "explore-visitor", who: "visitor", path: () => "/explore/projects" },
  { name: "project-public-visitor", who: "visitor", path: (f) => `/${f.publicProjectPath}` },
  { name: "not-found", who: "visitor", path: () => "/no/such/page" },
  { name: "authorize-error", who: "visitor", path: () => "/oauth/authorize?client_id=unknown&redirect_uri=http://x.example/cb&response_type=code" },
  { name: "deprecations", who: "visitor", path: () => "/help/deprecations" },
  { name: "password-forgot", who: "visitor", path: () => "/users/password/new" },
  { name: "mail-outbox", who: "visitor", path: () => "/-/mail" },
  { name: "home", who: "admin", path: () => "/" },
  { name: "dashboard-projects", who: "admin", path: () => "/dashboard/projects" },
  { name: "dashboard-groups", who: "admin", path: () => "/dashboard/groups" },
  { name: "explore", who: "admin", path: () => "/explore/projects" },
  { name: "project", who: "admin", path: (f) => `/${f.projectPath}` },
  { name: "container-registry", who: "admin", path: (f) => `/${f.projectPath}/container_registry` },
  { name: "deploy-tokens", who: "admin", path: (f) => `/${f.projectPath}/-/settings/repository` },
  { name: "applications", who: "admin", path: () => "/profile/applications" },
  { name: "application", who: "admin", path: (f) => f.profileAppPath },
  { name: "personal-access-tokens", who: "admin", path: () => "/profile/personal_access_tokens" },
  { name: "two-factor", who: "admin", path: () => "/profile/two_factor_auth" },
  { name: "password", who: "admin", path: () => "/profile/password/edit" },
  { name: "password-expired", who: "admin", path: () => "/profile/password/new" },
  { name: "profile-email", who: "admin", path: () => "/profile/email" },
  { name: "active-sessions", who: "admin", path: () => "/profile/active_sessions" },
  { name: "authentication-log", who: "admin", path: () => "/profile/authentication_log" },
  { name: "device", who: "admin", path: () => "/oauth/device" },
  { name: "demo-spa", who: "admin", path: () => "/-/demo/spa" },
  {
    name: "consent",
    who: "admin",
    path: (f) =>
      `/oauth/authorize?client_id=${f.profileClientId}&redirect_uri=${encodeURIComponent(LONG_REDIRECT)}&response_type=code&scope=api&state=s&code_challenge=${"a".repeat(43)}&code_challenge_method=S256`,
  },
  { name: "help", who: "visitor", path: () => "/help" },
  { name: "user-profile", who: "admin", path: () => "/root" },
  { name: "group", who: "admin", path: () => "/groups/demo" },
  { name: "group-new", who: "admin", path: () => "/groups/new" },
  { name: "project-new", who: "admin", path: () => "/projects/new" },
  { name: "project-edit", who: "admin", path: (f) => `/${f.projectPath}/edit` },
  { name: "project-demo", who: "admin", path: () => "/demo/demo-app" },
  { name: "merge-request", who: "admin", path: () => "/demo/demo-app/-/merge_requests/1" },
  { name: "pipeline", who: "admin", path: () => "/demo/demo-app/-/pipelines/1" },
  { name: "tree", who: "admin", path: () => "/demo/demo-app/-/tree/main" },
  { name: "blob", who: "admin", path: () => "/demo/demo-app/-/blob/main/README.md" },
  { name: "admin", who: "admin", path: () => "/admin" },
  { name: "admin-users", who: "admin", path: () => "/admin/users" },
  { name: "admin-user-new", who: "admin", path: () => "/admin/users/new" },
  { name: "admin-user", who: "admin", path: (f) => `/admin/users/${f.other.username}` },
  { name: "admin-user-lockout", who: "admin", path: (f) => `/admin/users/${f.other.username}/lockout` },
  { name: "admin-user-edit", who: "admin", path: (f) => `/admin/users/${f.other.username}/edit` },
  { name: "admin-applications", who: "admin", path: () => "/admin/applications" },
  { name: "admin-application", who: "admin", path: (f) => `/admin/applications/${f.adminAppId}` },
  { name: "admin-application-new", who: "admin", path: () => "/admin/applications/new" },
];

/**
 * Makes the fixtures through the API (root's token) and the pages (`page`, left signed in as the
 * administrator), so every page has rows to lay out, long names included.
 */
export async function preparePages(base: string, rootPassword: string, page: Page): Promise<Fixtures> {
  const root = await rootToken(base, rootPassword);
  const mkUser = async (prefix: string, admin: boolean) => {
    const username = unique(prefix);
    const body = { username, name: `Layout ${username}`, email: `${username}@example.com`, password: PASSWORD, skip_confirmation: true, admin };
    const u = (await apiCall(base, "POST", "/users", root, body)) as { id: number };
    return { id: u.id, username, password: PASSWORD };
  };
  const admin = await mkUser("layoutadmin", true);
  const other = await mkUser("layoutother", false);
  const adminToken = await passwordGrant(base, admin.username, admin.password);
  const mkProject = async (visibility: string) => {
    const path = unique("layout-project-");
    const p = (await apiCall(base, "POST", "/projects", adminToken, { name: `A project with a rather long name ${path}`, path, visibility, description: "Holds the images and packages of the layout check." })) as {
      path_with_namespace: string;
    };
    return p.path_with_namespace;
  };
  const projectPath = await mkProject("private");
  const publicProjectPath = await mkProject("public");
  const adminApp = (await apiCall(base, "POST", "/applications", root, { name: "An instance-wide application with a long name", redirect_uri: LONG_REDIRECT, scopes: "api read_user" })) as { id: number };
  await signIn(page, base, admin.username, admin.password);
  const { clientId } = await registerApplication(page, base, { name: "A rather long application name for the layout check", redirectUri: LONG_REDIRECT, scopes: ["api", "read_user"] });
  const profileAppPath = new URL(page.url()).pathname;
  return { admin, other, projectPath, publicProjectPath, profileAppPath, profileClientId: clientId, adminAppId: adminApp.id };
}
