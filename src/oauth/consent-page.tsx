import { documentHost } from "./client-metadata/fetch-document";
import { SCOPES, formatScopes, isScope } from "../domain/scopes";
import { CsrfField } from "./page-door";
import type { AuthorizeRequest } from "./authorize-request";
import { oidcHiddenFields } from "./oidc/authorize-params";

/**
 * The consent page: names the application, the signed-in user and each scope with its
 * description; the decision is a POST (CSRF-protected) that re-validates every field it echoes.
 */
export function ConsentPage(props: { request: AuthorizeRequest; username: string; csrf: string }) {
  const { request: r } = props;
  const hidden: Record<string, string | null> = {
    client_id: r.app.uid,
    redirect_uri: r.redirectUri,
    response_type: r.responseType,
    // offline_access is not a granted scope, but the approval must still know it was asked for (docs/oidc.md, "Signing out").
    scope: formatScopes(r.offlineAccess ? [...r.scopes, "offline_access"] : r.scopes),
    state: r.state,
    code_challenge: r.codeChallenge,
    code_challenge_method: r.codeChallenge ? "S256" : null,
    resource: r.resourceIndicator,
    dpop_jkt: r.dpopJkt,
    ...oidcHiddenFields(r.oidc),
  };
  return (
    <div class="narrow">
      <h1>
        Authorize <strong><bdi>{r.app.name}</bdi></strong> to use your account?
      </h1>
      {/* Each name is isolated (<bdi>, HTML §4.5.23) so that no character in it reorders the sentence around it. */}
      <p>
        You are signed in as <strong><bdi>{props.username}</bdi></strong>. An application called <strong><bdi>{r.app.name}</bdi></strong> is
        requesting access to your account. It will be redirected to <code><bdi dir="ltr">{new URL(r.redirectUri).origin}</bdi></code>.
      </p>
      <UnverifiedNotice app={r.app} />
      <ScopeList scopes={r.scopes} />
      <DecisionForm action="/oauth/authorize" csrf={props.csrf} hidden={hidden} />
    </div>
  );
}

/** The consent decision: Authorize or Deny, a CSRF-protected POST echoing the request's fields. */
export function DecisionForm(props: { action: string; csrf: string; hidden: Record<string, string | null> }) {
  return (
    <form method="post" action={props.action}>
      <CsrfField token={props.csrf} />
      {Object.entries(props.hidden).map(([name, value]) => (value === null ? null : <input type="hidden" name={name} value={value} />))}
      <p>
        <button type="submit" name="decision" value="approve">
          Authorize
        </button>{" "}
        <button type="submit" name="decision" value="deny" class="secondary">
          Deny
        </button>
      </p>
    </form>
  );
}

/**
 * What identity scopes let an application learn, in a person's words (the catalogue's
 * descriptions are written for developers).
 */
const IDENTITY_WORDS: Record<string, string> = {
  openid: "Sign you in with your account: it learns your user ID, your username and the groups you belong to.",
  profile: "See your name, your username and the address of your profile page.",
  email: "See your email address.",
};

/** The scopes asked for: identity scopes in plain words first, then the others with their descriptions. */
export function ScopeList(props: { scopes: string[] }) {
  const identity = props.scopes.filter((s) => Object.hasOwn(IDENTITY_WORDS, s));
  const access = props.scopes.filter((s) => !Object.hasOwn(IDENTITY_WORDS, s));
  return (
    <div>
      {identity.length > 0 ? (
        <>
          <p>This application will be able to:</p>
          <ul class="identity-scopes">
            {identity.map((s) => (
              <li>{IDENTITY_WORDS[s]}</li>
            ))}
          </ul>
        </>
      ) : null}
      {access.length > 0 ? (
        <>
          <p>{identity.length > 0 ? "It will also be able to:" : "This application will be able to:"}</p>
          <ul>
            {access.map((s) => (
              <li>
                <strong>{s}</strong>: {isScope(s) ? SCOPES[s] : ""}
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </div>
  );
}

/**
 * Dynamically registered applications named themselves: the person is told nobody checked that
 * name. A client identified by a metadata document (docs/agents.md) is named by the host that
 * serves the document: the one fact about it that is checked.
 */
export function UnverifiedNotice(props: { app: { dynamic: boolean; uid: string } }) {
  if (!props.app.dynamic) return null;
  const host = documentHost(props.app.uid);
  if (host) {
    return (
      <div class="flash warning" role="status">
        This application describes itself in a document published at <strong><code><bdi dir="ltr">{host}</bdi></code></strong>. Its name was
        chosen by whoever runs that site and has not been verified. Authorize it only if you trust <bdi dir="ltr">{host}</bdi>.
      </div>
    );
  }
  return (
    <div class="flash warning" role="status">
      This application registered itself and has not been verified. Its name was chosen by whoever registered it. Authorize it only if you
      trust where you came from.
    </div>
  );
}

/** What went wrong, in a person's words; the OAuth code stays in small print for support. */
const PERSON_MESSAGES: Record<string, { title: string; text: string }> = {
  invalid_client: {
    title: "This application is not known here",
    text: "The application that sent you here is not registered with this service, or it was removed. Go back to the application and try again, or tell its maker.",
  },
  invalid_redirect_uri: {
    title: "This sign-in link does not match the application",
    text: "The link that brought you here names a return address the application did not register. For your safety you were not sent anywhere.",
  },
};
const GENERIC_MESSAGE = {
  title: "This sign-in link does not work",
  text: "The link that brought you here is incomplete or was changed on the way. Go back to the application and start again.",
};

export function AuthorizeErrorPage(props: { error: string; description: string }) {
  const message = PERSON_MESSAGES[props.error] ?? GENERIC_MESSAGE;
  return (
    <div class="narrow">
      <h1>{message.title}</h1>
      <div class="flash error" role="alert">
        <p>{message.text}</p>
      </div>
      <p class="muted">You were not redirected back to the application.</p>
      <p class="muted">
        <small>
          Error code: <code>{props.error}</code>. {props.description}
        </small>
      </p>
    </div>
  );
}
