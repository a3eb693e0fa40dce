import type { Child } from "hono/jsx";

/** The service's name, shown on every page. */
export const SERVICE_NAME = "Edge Auth";

/** One small stylesheet for every page (served inline so pages need no second request). */
const STYLES = `
:root{--fg:#1f1e24;--muted:#626168;--bg:#fbfafd;--line:#dcdcde;--accent:#1f75cb;--danger:#c91c00;--ok:#108548}
*{box-sizing:border-box}body{margin:0;font:16px/1.5 system-ui,sans-serif;color:var(--fg);background:var(--bg)}
header{background:#fff;border-bottom:1px solid var(--line);padding:.5rem 1rem;display:flex;gap:1rem;align-items:center;flex-wrap:wrap}
header .brand{font-weight:700;color:var(--fg);text-decoration:none}nav a{margin-right:.75rem}
main{max-width:48rem;margin:1.5rem auto;padding:0 1rem}
a{color:var(--accent)}label{display:block;font-weight:600;margin:.75rem 0 .25rem}
input[type=text],input[type=password],input[type=email],input[type=date],input[type=url],textarea{width:100%;padding:.5rem;border:1px solid var(--line);border-radius:4px;font:inherit}
button,.button{display:inline-block;padding:.5rem 1rem;border-radius:4px;border:1px solid var(--accent);background:var(--accent);color:#fff;font:inherit;cursor:pointer;text-decoration:none}
button.secondary{background:#fff;color:var(--fg);border-color:var(--line)}button.danger{background:var(--danger);border-color:var(--danger)}
button:focus-visible,a:focus-visible,input:focus-visible{outline:3px solid #9dc7f1;outline-offset:1px}
.flash{padding:.75rem;border-radius:4px;margin:1rem 0}.flash.error{background:#fdd4cd;color:#8d1300}.flash.notice{background:#c3e6cd;color:#0d532a}
table{width:100%;border-collapse:collapse}th,td{text-align:left;padding:.5rem;border-bottom:1px solid var(--line)}
code,.secret{font-family:ui-monospace,monospace;background:#ececef;padding:.1rem .3rem;border-radius:3px;word-break:break-all}
.muted{color:var(--muted)}fieldset{border:1px solid var(--line);border-radius:4px}.checkbox label{display:inline;font-weight:400}
`;

export interface LayoutProps {
  title: string;
  /** The signed-in user's username, for the navigation bar. */
  username?: string | null;
  /** CSRF token for the sign-out form in the navigation bar. */
  csrfToken?: string;
  children?: Child;
}

export function Layout({ title, username, csrfToken, children }: LayoutProps) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${title} · ${SERVICE_NAME}`}</title>
        <style>{STYLES}</style>
      </head>
      <body>
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
              <form method="post" action="/users/sign_out" style="display:inline">
                <input type="hidden" name="authenticity_token" value={csrfToken ?? ""} />
                <button type="submit" class="secondary">
                  Sign out {username}
                </button>
              </form>
            </nav>
          ) : null}
        </header>
        <main>{children}</main>
      </body>
    </html>
  );
}
