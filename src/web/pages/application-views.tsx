import { documentHost } from "../../domain/client-id-url";
import type { ApplicationRow } from "../../db/applications";
import { MAX_TOKEN_LIFETIME_SECONDS, MIN_TOKEN_LIFETIME_SECONDS, type ApplicationErrors } from "../../domain/application-input";
import { registeredUris } from "../../domain/redirect-uri";
import { ALL_SCOPES } from "../../domain/scopes";
import type { AuthorizedApplication } from "../../services/authorizations";
import { CopyableCode, RevokeForm, ScopeBadges, ScopeCheckboxes, ShownOnce, TableHead } from "../components";
import { CsrfField, formatDate } from "../page";
import { parseScopes } from "../../domain/scopes";

/** The components of /profile/applications (routes in applications.tsx). */
export interface AppFormValues {
  name: string;
  redirectUri: string;
  scopes: string[];
  confidential: boolean;
  expireAccessTokens: boolean;
  /** RFC 9449 §5.2: issue only DPoP-bound tokens (unchecked: absent from the post). */
  dpopBoundAccessTokens: boolean;
  /** RFC 9126 §6: authorization requests only through POST /oauth/par. */
  requirePushedAuthorizationRequests: boolean;
  /** Seconds, as typed; empty on a new application: the configured default. */
  accessTokenExpiresIn: string;
  /** The client's public keys (JWK Set JSON) or their URL, and how it authenticates; empty: none, by its kind. */
  jwks: string;
  jwksUri: string;
  tokenEndpointAuthMethod: string;
  /** OpenID Connect logout (docs/oidc.md, "Signing out"): one URI per line; the back-channel URL; sid required. */
  postLogoutRedirectUris: string;
  backchannelLogoutUri: string;
  backchannelLogoutSessionRequired: boolean;
  /** Skip the consent page; only the admin area's form offers it (undefined elsewhere). */
  trusted?: boolean;
}

export const EMPTY_FORM: AppFormValues = { name: "", redirectUri: "", scopes: [], confidential: true, expireAccessTokens: true, dpopBoundAccessTokens: false, requirePushedAuthorizationRequests: false, accessTokenExpiresIn: "", jwks: "", jwksUri: "", tokenEndpointAuthMethod: "", postLogoutRedirectUris: "", backchannelLogoutUri: "", backchannelLogoutSessionRequired: false };

export function formValuesOf(app: ApplicationRow): AppFormValues {
  return {
    name: app.name,
    redirectUri: app.redirectUri,
    scopes: parseScopes(app.scopes),
    confidential: app.confidential,
    expireAccessTokens: app.expireAccessTokens,
    dpopBoundAccessTokens: app.dpopBoundAccessTokens,
    requirePushedAuthorizationRequests: app.requirePushedAuthorizationRequests,
    accessTokenExpiresIn: String(app.accessTokenTtlSeconds),
    jwks: app.jwks ?? "",
    jwksUri: app.jwksUri ?? "",
    tokenEndpointAuthMethod: app.tokenEndpointAuthMethod ?? "",
    postLogoutRedirectUris: app.postLogoutRedirectUris,
    backchannelLogoutUri: app.backchannelLogoutUri ?? "",
    backchannelLogoutSessionRequired: app.backchannelLogoutSessionRequired,
    trusted: app.trusted,
  };
}

function FieldErrors({ id, errors }: { id: string; errors?: string[] }) {
  if (!errors?.length) return null;
  return (
    <p class="flash error" id={id} role="alert">
      {errors.join(" ")}
    </p>
  );
}

export function ApplicationForm(props: { action: string; submit: string; token: string; values: AppFormValues; errors?: ApplicationErrors; defaultLifetime: number }) {
  const { values, errors = {} } = props;
  return (
    <form method="post" action={props.action} class="card">
      <CsrfField token={props.token} />
      <label for="application_name">Name</label>
      <input type="text" id="application_name" name="name" required maxlength={255} value={values.name} aria-describedby={errors.name ? "name_errors" : undefined} />
      <FieldErrors id="name_errors" errors={errors.name?.map((e) => `Name ${e}`)} />
      <label for="application_redirect_uri">Redirect URI</label>
      <p class="hint" id="redirect_hint">
        One URI per line. Use HTTPS, or http://127.0.0.1 or http://localhost for apps on this machine (any port).
      </p>
      <textarea id="application_redirect_uri" name="redirect_uri" required aria-describedby="redirect_hint">
        {values.redirectUri}
      </textarea>
      <FieldErrors id="redirect_errors" errors={errors.redirect_uri?.map((e) => `Redirect URI ${e}`)} />
      <div class="checkbox">
        <input type="checkbox" id="application_confidential" name="confidential" value="1" checked={values.confidential} aria-describedby="confidential_hint" />
        <label for="application_confidential">Confidential</label>
        <p class="hint" id="confidential_hint">
          The application can keep the client secret confidential (a server). Native apps and single-page apps are not
          confidential and must use PKCE.
        </p>
      </div>
      <div class="checkbox">
        <input type="checkbox" id="application_expire_access_tokens" name="expire_access_tokens" value="1" checked={values.expireAccessTokens} aria-describedby="expire_hint" />
        <label for="application_expire_access_tokens">Expire access tokens</label>
        <p class="hint" id="expire_hint">Access tokens expire after the lifetime below; use the refresh token to get a new one.</p>
      </div>
      <div class="checkbox">
        <input type="checkbox" id="application_dpop_bound_access_tokens" name="dpop_bound_access_tokens" value="1" checked={values.dpopBoundAccessTokens} aria-describedby="dpop_hint" />
        <label for="application_dpop_bound_access_tokens">Require DPoP-bound tokens</label>
        <p class="hint" id="dpop_hint">
          Every token request must carry a DPoP proof (RFC 9449): tokens are bound to the application's key, and a stolen
          token is useless without it. Requests without a proof are refused.
        </p>
      </div>
      <div class="checkbox">
        <input type="checkbox" id="application_require_pushed_authorization_requests" name="require_pushed_authorization_requests" value="1" checked={values.requirePushedAuthorizationRequests} aria-describedby="par_hint" />
        <label for="application_require_pushed_authorization_requests">Require pushed authorization requests</label>
        <p class="hint" id="par_hint">
          The application must push its authorization requests to /oauth/par (RFC 9126) and send people to the authorization
          page with the request_uri it gets back; requests in the URL are refused.
        </p>
      </div>
      {values.trusted === undefined ? null : (
        <div class="checkbox">
          <input type="checkbox" id="application_trusted" name="trusted" value="1" checked={values.trusted} aria-describedby="trusted_hint" />
          <label for="application_trusted">Trusted</label>
          <p class="hint" id="trusted_hint">
            Trusted applications skip the consent page: users are not asked before the application gets access. For the
            instance's own applications only.
          </p>
        </div>
      )}
      <label for="application_access_token_expires_in">Access token lifetime (seconds)</label>
      <p class="hint" id="lifetime_hint">
        From {MIN_TOKEN_LIFETIME_SECONDS} to {MAX_TOKEN_LIFETIME_SECONDS} seconds. Leave empty for the instance default ({props.defaultLifetime} seconds).
      </p>
      <input
        type="number"
        id="application_access_token_expires_in"
        name="access_token_expires_in"
        min={MIN_TOKEN_LIFETIME_SECONDS}
        max={MAX_TOKEN_LIFETIME_SECONDS}
        step={1}
        inputmode="numeric"
        value={values.accessTokenExpiresIn}
        aria-describedby={errors.access_token_expires_in ? "lifetime_hint lifetime_errors" : "lifetime_hint"}
      />
      <FieldErrors id="lifetime_errors" errors={errors.access_token_expires_in?.map((e) => `Access token lifetime ${e}`)} />
      <label for="application_token_endpoint_auth_method">Client authentication</label>
      <p class="hint" id="auth_method_hint">
        How the application proves itself at the token endpoint. Private key JWT (RFC 7523) needs its public keys below.
      </p>
      <select id="application_token_endpoint_auth_method" name="token_endpoint_auth_method" aria-describedby="auth_method_hint">
        {[
          ["", "By its kind (secret when confidential)"],
          ["client_secret_basic", "Client secret (HTTP Basic)"],
          ["client_secret_post", "Client secret (form)"],
          ["private_key_jwt", "Private key JWT"],
          ["none", "None (public client)"],
        ].map(([value, label]) => (
          <option value={value} selected={values.tokenEndpointAuthMethod === value}>
            {label}
          </option>
        ))}
      </select>
      <FieldErrors id="auth_method_errors" errors={errors.token_endpoint_auth_method?.map((e) => `Client authentication ${e}`)} />
      <label for="application_jwks">Public keys (JWK Set)</label>
      <textarea id="application_jwks" name="jwks" rows={4} aria-describedby="jwks_hint">
        {values.jwks}
      </textarea>
      <p class="hint" id="jwks_hint">
        A JSON Web Key Set of public signing keys, or leave empty and give the URL where the application publishes them.
      </p>
      <FieldErrors id="jwks_errors" errors={errors.jwks?.map((e) => `Public keys ${e}`)} />
      <label for="application_jwks_uri">Public keys URL (jwks_uri)</label>
      <input type="url" id="application_jwks_uri" name="jwks_uri" value={values.jwksUri} />
      <FieldErrors id="jwks_uri_errors" errors={errors.jwks_uri?.map((e) => `Public keys URL ${e}`)} />
      <label for="application_post_logout_redirect_uris">Post-logout redirect URIs</label>
      <textarea id="application_post_logout_redirect_uris" name="post_logout_redirect_uris" rows={2} aria-describedby="post_logout_hint">
        {values.postLogoutRedirectUris}
      </textarea>
      <p class="hint" id="post_logout_hint">
        Where the sign-out page may send people back after the application asks to sign them out (OpenID Connect RP-Initiated
        Logout). One URI per line, matched exactly.
      </p>
      <FieldErrors id="post_logout_errors" errors={errors.post_logout_redirect_uris?.map((e) => `Post-logout redirect URIs ${e}`)} />
      <label for="application_backchannel_logout_uri">Back-channel logout URL</label>
      <input type="url" id="application_backchannel_logout_uri" name="backchannel_logout_uri" value={values.backchannelLogoutUri} aria-describedby="backchannel_hint" />
      <p class="hint" id="backchannel_hint">
        When a person signs out, a signed logout token is POSTed here for every session that signed in to the application (OpenID
        Connect Back-Channel Logout). An https URL on a public host.
      </p>
      <FieldErrors id="backchannel_errors" errors={errors.backchannel_logout_uri?.map((e) => `Back-channel logout URL ${e}`)} />
      <div class="checkbox">
        <input
          type="checkbox"
          id="application_backchannel_logout_session_required"
          name="backchannel_logout_session_required"
          value="1"
          checked={values.backchannelLogoutSessionRequired}
          aria-describedby="session_required_hint"
        />
        <label for="application_backchannel_logout_session_required">Logout tokens name the session (sid)</label>
        <p class="hint" id="session_required_hint">
          ID tokens and logout tokens carry the session's sid, so the application can end only that session.
        </p>
      </div>
      <fieldset>
        <legend>Scopes</legend>
        <FieldErrors id="scope_errors" errors={errors.scopes?.map((e) => `Scopes ${e}`)} />
        <ScopeCheckboxes scopes={ALL_SCOPES} checked={values.scopes} idPrefix="scope_" />
      </fieldset>
      <button type="submit">{props.submit}</button>
    </form>
  );
}

/** One application; `base` is where its list lives (the user's page, or the admin area's). */
export function ApplicationDetails(props: { app: ApplicationRow; secret?: string | null; token: string; base?: string }) {
  const { app, secret } = props;
  const base = props.base ?? "/profile/applications";
  return (
    <section class="card" aria-labelledby="app-heading">
      <h2 id="app-heading">{app.name}</h2>
      <dl>
        <dt>Application ID</dt>
        <dd>
          <CopyableCode id="application_id" value={app.uid} copyLabel="Copy ID" />
        </dd>
        <dt>Secret</dt>
        {secret ? (
          <dd>
            <ShownOnce id="client_secret" value={secret} copyLabel="Copy secret" warning="This is the only time the secret is shown. Copy it now; if you lose it, renew it." />
          </dd>
        ) : (
          <dd class="muted">Shown only once, when created or renewed.</dd>
        )}
        <dt>Callback URLs</dt>
        <dd>
          {registeredUris(app.redirectUri).map((u) => (
            <div>
              <code>{u}</code>
            </div>
          ))}
        </dd>
        <dt>Confidential</dt>
        <dd>{app.confidential ? "Yes" : "No"}</dd>
        <dt>Expire access tokens</dt>
        <dd>{app.expireAccessTokens ? "Yes" : "No"}</dd>
        <dt>Require DPoP-bound tokens</dt>
        <dd>{app.dpopBoundAccessTokens ? "Yes" : "No"}</dd>
        <dt>Require pushed authorization requests</dt>
        <dd>{app.requirePushedAuthorizationRequests ? "Yes" : "No"}</dd>
        <dt>Access token lifetime</dt>
        <dd>{app.accessTokenTtlSeconds} seconds</dd>
        {app.ownerId === null ? (
          <>
            <dt>Trusted</dt>
            <dd>{app.trusted ? "Yes (skips the consent page)" : "No"}</dd>
            <dt>Registered</dt>
            <dd>{app.dynamic ? <ClientKindBadge app={app} /> : "By an administrator"}</dd>
          </>
        ) : null}
        <dt>Scopes</dt>
        <dd>
          <ScopeBadges scopes={parseScopes(app.scopes)} />
        </dd>
      </dl>
      <div class="actions">
        <a class="button secondary" href={`${base}/${app.id}/edit`}>
          Edit
        </a>
        <form method="post" action={`${base}/${app.id}/renew`} data-confirm="Renew the secret? The current secret stops working at once.">
          <CsrfField token={props.token} />
          <button type="submit" class="secondary">
            Renew secret
          </button>
        </form>
        <a class="button danger" href={`${base}/${app.id}/delete`}>
          Delete
        </a>
      </div>
    </section>
  );
}

export function ApplicationsTable({ apps }: { apps: ApplicationRow[] }) {
  if (apps.length === 0) return <p class="muted">You have no applications yet.</p>;
  return (
    <table>
      <caption class="muted">Your applications</caption>
      <TableHead columns={["Name", "Application ID", "Callback URL", "Confidential"]} />
      <tbody>
        {apps.map((app) => (
          <tr>
            <td>
              <a href={`/profile/applications/${app.id}`}>{app.name}</a>
            </td>
            <td>
              <code class="id">{app.uid}</code>
            </td>
            <td>
              {registeredUris(app.redirectUri).map((u) => (
                <div>{u}</div>
              ))}
            </td>
            <td>{app.confidential ? "Yes" : "No"}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function AuthorizedApplications({ list, token }: { list: AuthorizedApplication[]; token: string }) {
  return (
    <section aria-labelledby="authorized-heading">
      <h2 id="authorized-heading">Authorized applications</h2>
      {list.length === 0 ? (
        <p class="muted">You have not authorized any application to use your account.</p>
      ) : (
        <table>
          <TableHead columns={["Name", "Authorized at", "Scopes"]} action />
          <tbody>
            {list.map((a) => (
              <tr>
                <td>
                  <bdi>{a.application.name}</bdi>
                  {documentHost(a.application.uid) && (
                    <small class="muted">
                      {" "}
                      (metadata document at <code>{documentHost(a.application.uid)}</code>)
                    </small>
                  )}
                </td>
                <td>{formatDate(a.createdAt)}</td>
                <td>
                  <ScopeBadges scopes={a.scopes} />
                </td>
                <td>
                  <RevokeForm
                    action={`/profile/applications/authorized/${a.application.id}/revoke`}
                    confirm={`Revoke access of ${a.application.name}?`}
                    label={`Revoke ${a.application.name}`}
                    token={token}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/**
 * How a client came to be registered, where it was not an administrator or a user: by itself
 * (RFC 7591), or from its Client ID Metadata Document (its client_id is the document's URL).
 */
export function ClientKindBadge({ app }: { app: Pick<ApplicationRow, "dynamic" | "uid"> }) {
  const host = documentHost(app.uid);
  if (host) return <span class="badge dynamic">Metadata document at {host} (unverified)</span>;
  return app.dynamic ? <span class="badge dynamic">Dynamic (registered by the client, RFC 7591)</span> : null;
}
