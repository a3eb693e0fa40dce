import { renderPage, type PageEnv } from "../page";
import { issuerOf } from "../../http/issuer";
import { pageApp } from "../door";

/**
 * /help: where an app developer or a user starts (the discovery document's
 * service_documentation). Each topic names the endpoints to call and the document of this
 * repository that explains it (docs/), as GitLab's /help indexes its documentation.
 */
const help = pageApp({ enter: "anyone" });

const TOPICS: { title: string; doc: string; what: string; links: [string, string][] }[] = [
  {
    title: "Connect an application (OAuth 2.0)",
    doc: "docs/oauth.md",
    what: "Register an application, then use the authorization code flow with PKCE, the device flow or client credentials.",
    links: [
      ["/profile/applications", "Your applications"],
      ["/.well-known/oauth-authorization-server", "Authorization server metadata (RFC 8414)"],
    ],
  },
  {
    title: "Sign users in (OpenID Connect)",
    doc: "docs/oidc.md",
    what: "ID tokens, the userinfo endpoint and the signing keys; every library configures itself from the discovery URL.",
    links: [
      ["/.well-known/openid-configuration", "OpenID Connect discovery"],
      ["/oauth/discovery/keys", "Signing keys (JWKS)"],
    ],
  },
  {
    title: "Agents and command-line clients",
    doc: "docs/agents.md",
    what: "Dynamic client registration, client metadata documents and the device flow for tools without a browser.",
    links: [["/.well-known/oauth-protected-resource", "Protected resource metadata (RFC 9728)"]],
  },
  {
    title: "REST API",
    doc: "docs/rest-api.md",
    what: "GitLab's /api/v4: users, projects, groups, repositories, merge requests, runners, packages.",
    links: [["/profile/personal_access_tokens", "Personal access tokens"]],
  },
  { title: "GraphQL API", doc: "docs/graphql.md", what: "GitLab's /api/graphql.", links: [] },
  { title: "Git over HTTPS", doc: "docs/git.md", what: "Clone and push with a personal access token or an OAuth token as the password.", links: [] },
  { title: "Container and package registries", doc: "docs/registries.md", what: "docker login, npm, Maven, PyPI and generic packages.", links: [] },
  {
    title: "Deprecations and removals",
    doc: "docs/deprecations.md",
    what: "What changes at which service version, and what this instance serves today.",
    links: [["/help/deprecations", "Deprecations and removals"]],
  },
  { title: "Security", doc: "docs/security.md", what: "Tokens, sessions, two-factor authentication and what is stored.", links: [["/profile/two_factor_auth", "Two-factor authentication"]] },
];

help.get("/help", (c) => {
  const issuer = issuerOf(c);
  return renderPage(
    c,
    "Help",
    <>
      <h1>Help</h1>
      <p>
        The issuer of this instance is <code>{issuer}</code>. The documents named below are in the <code>docs/</code> folder of this service's source.
      </p>
      {TOPICS.map((t) => (
        <section class="card">
          <h2>{t.title}</h2>
          <p>{t.what}</p>
          <ul>
            {t.links.map(([href, label]) => (
              <li>
                <a href={href}>{label}</a>
              </li>
            ))}
            <li>
              Read: <code>{t.doc}</code>
            </li>
          </ul>
        </section>
      ))}
    </>,
  );
});

export default help;
