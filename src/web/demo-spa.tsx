import { html } from "hono/html";
import { getConfig } from "../config";
import { findApplicationByUid } from "../db/applications";
import { getDb } from "../db/client";
import type { AppEnv } from "../env";
import { DEMO_SPA_PATH, DEMO_SPA_SCOPES, DEMO_SPA_UID } from "../setup/demo-spa";
import { DEMO_SPA_SCRIPT } from "./demo-spa-script";
import { SERVICE_NAME } from "./layout";
import { pageApp } from "./door";

/**
 * The demo single-page app: static HTML and a script, served by the Worker. It talks to the
 * authorization server only through the public OAuth endpoints and the API, as a SPA hosted
 * elsewhere would; the server address is the configured ISSUER, or this origin.
 */
const spa = pageApp<AppEnv>({ enter: "anyone" });

spa.get(`${DEMO_SPA_PATH}.js`, (c) =>
  c.body(DEMO_SPA_SCRIPT, 200, { "Content-Type": "text/javascript; charset=utf-8", "Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff" }),
);

spa.get(DEMO_SPA_PATH, async (c) => {
  const origin = new URL(c.req.url).origin;
  const issuer = getConfig(c.env).issuer || origin;
  const server = (() => {
    try {
      return new URL(issuer).origin;
    } catch {
      return origin;
    }
  })();
  const registered = (await findApplicationByUid(getDb(c.env.DB), DEMO_SPA_UID)) !== null;
  // A SPA's page: its script from here, its fetches to the authorization server, no referrer
  // (the callback URL carries the code), never framed.
  c.header(
    "Content-Security-Policy",
    `default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self' ${server}; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
  );
  c.header("Referrer-Policy", "no-referrer");
  c.header("X-Content-Type-Options", "nosniff");
  c.header("Cache-Control", "no-store");
  return c.html(
    html`<!DOCTYPE html>${(
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`Demo SPA · ${SERVICE_NAME}`}</title>
        <link rel="stylesheet" href="/-/assets/pages.css" />
        <script src={`${DEMO_SPA_PATH}.js`} defer></script>
      </head>
      <body>
        <header>
          <a class="brand" href="/">
            {SERVICE_NAME}
          </a>
          <span>Demo single-page app</span>
        </header>
        <main>
          <h1>Demo SPA: authorization code with PKCE</h1>
          <div id="spa-config" hidden data-server={server} data-issuer={issuer} data-client-id={DEMO_SPA_UID} data-scope={DEMO_SPA_SCOPES[0]}></div>
          {registered ? null : (
            <p class="flash error" role="alert">
              The demo application is not registered: start the service with SEED_DEMO_DATA=true (npm start does).
            </p>
          )}
          <noscript>
            <p class="flash warning">This page is a JavaScript single-page app; the service's other pages work without JavaScript.</p>
          </noscript>
          <p id="status" role="status" aria-live="polite"></p>
          <section id="signed-out">
            <p>
              This page is a public OAuth client (client_id <code>{DEMO_SPA_UID}</code>). It sends you to{" "}
              <code>/oauth/authorize</code> with a PKCE challenge, exchanges the code with <code>fetch</code>, and keeps
              its tokens in this tab's sessionStorage.
            </p>
            <button type="button" id="sign-in">
              Sign in with {SERVICE_NAME}
            </button>
          </section>
          <section id="signed-in" hidden>
            <h2>
              Signed in as <span id="user-name"></span>
            </h2>
            <p id="token-info" class="muted"></p>
            <div class="actions">
              <button type="button" id="refresh" class="secondary">
                Refresh tokens
              </button>
              <button type="button" id="sign-out" class="danger">
                Sign out
              </button>
            </div>
            <h3>GET /api/v4/user</h3>
            <pre>
              <code id="user-json"></code>
            </pre>
          </section>
        </main>
      </body>
    </html>
    )}`,
  );
});

export default spa;
