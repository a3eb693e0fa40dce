import type { Child } from "hono/jsx";

/** The service's name, shown on every page. */
export const SERVICE_NAME = "Edge Auth";

export interface LayoutProps {
  title: string;
  /** The signed-in user's username, for the navigation bar. */
  username?: string | null;
  /** CSRF token for the sign-out form in the navigation bar. */
  csrfToken?: string;
  children?: Child;
}

/**
 * Every page: the service's name, a navigation bar for signed-in users, the one stylesheet
 * (src/web/assets.ts; a file, so the CSP can forbid inline styles) and the copy-button script.
 */
export function Layout({ title, username, csrfToken, children }: LayoutProps) {
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
          {username ? (
            <nav aria-label="Main">
              <a href="/profile/applications">Applications</a>
              <a href="/profile/personal_access_tokens">Access tokens</a>
              <a href="/profile/two_factor_auth">Two-factor authentication</a>
              <a href="/help/deprecations">Deprecations</a>
              <form method="post" action="/users/sign_out">
                <input type="hidden" name="authenticity_token" value={csrfToken ?? ""} />
                <button type="submit" class="secondary">
                  Sign out {username}
                </button>
              </form>
            </nav>
          ) : (
            <nav aria-label="Main">
              <a href="/help/deprecations">Deprecations</a>
            </nav>
          )}
        </header>
        <main id="main">{children}</main>
      </body>
    </html>
  );
}
