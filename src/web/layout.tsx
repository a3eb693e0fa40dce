import type { Child } from "hono/jsx";

/** The service's name, shown on every page. */
export const SERVICE_NAME = "Edge Auth";

/** Who the header is drawn for: nobody, a user, or an administrator. */
export interface HeaderUser {
  username: string;
  isAdmin: boolean;
}

export interface LayoutProps {
  title: string;
  /** The signed-in user, for the navigation bar; null or absent when nobody is signed in. */
  user?: HeaderUser | null;
  /** CSRF token for the sign-out form in the navigation bar. */
  csrfToken?: string;
  children?: Child;
}

/**
 * The header's links, GitLab's paths: a signed-in person reaches every section from here (their
 * projects and groups, applications, access tokens, the admin area for administrators); a visitor
 * gets sign-in and the public projects. One list, so the browser tests walk the same links.
 */
export function headerLinks(user: HeaderUser | null | undefined): { href: string; label: string }[] {
  if (!user) {
    return [
      { href: "/explore/projects", label: "Explore" },
      { href: "/users/sign_in", label: "Sign in" },
    ];
  }
  return [
    { href: "/dashboard/projects", label: "Projects" },
    { href: "/dashboard/groups", label: "Groups" },
    { href: "/profile/applications", label: "Applications" },
    { href: "/profile/personal_access_tokens", label: "Access tokens" },
    ...(user.isAdmin ? [{ href: "/admin", label: "Admin" }] : []),
  ];
}

/**
 * Every page: the service's name, the navigation bar, the one stylesheet (src/web/assets.ts; a
 * file, so the CSP can forbid inline styles) and the copy-and-confirm script.
 */
export function Layout({ title, user, csrfToken, children }: LayoutProps) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${title} · ${SERVICE_NAME}`}</title>
        <link rel="stylesheet" href="/-/assets/pages.css" />
        <script src="/-/assets/pages.js" defer></script>
      </head>
      <body>
        <a class="skip" href="#main">
          Skip to content
        </a>
        <header>
          <a class="brand" href="/">
            {SERVICE_NAME}
          </a>
          <nav aria-label="Main">
            {headerLinks(user).map((l) => (
              <a href={l.href}>{l.label}</a>
            ))}
            {user ? (
              // Sign-out is a POST with the CSRF token: a link could be forged by any page.
              <form method="post" action="/users/sign_out">
                <input type="hidden" name="authenticity_token" value={csrfToken ?? ""} />
                <button type="submit" class="secondary" aria-label={`Sign out ${user.username}`}>
                  Sign out
                </button>
              </form>
            ) : null}
          </nav>
        </header>
        <main id="main">{children}</main>
      </body>
    </html>
  );
}
