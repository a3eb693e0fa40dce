import { Flash, renderPage, takeFlash, type PageEnv } from "../page";
import { currentUser } from "../session";
import { pageApp } from "../door";

/** The home page: where to go next, signed in or not. */
const home = pageApp({ enter: "anyone" });

home.get("/", async (c) => {
  const user = await currentUser(c);
  const notice = takeFlash(c);
  if (!user) {
    return renderPage(
      c,
      "Welcome",
      <>
        <h1>Edge Auth</h1>
        <Flash kind="notice" message={notice} />
        <p>An OAuth 2.0 authorization server and API with GitLab's wire behaviour.</p>
        <p>
          <a class="button" href="/users/sign_in">
            Sign in
          </a>
        </p>
        <ul>
          <li>
            <a href="/explore/projects">Explore public projects</a>
          </li>
          <li>
            <a href="/-/demo/spa">Demo single-page app (authorization code with PKCE)</a>
          </li>
          <li>
            <a href="/help/deprecations">Deprecations and removals</a>
          </li>
          <li>
            <a href="/.well-known/oauth-authorization-server">Authorization server metadata (RFC 8414)</a>
          </li>
          <li>
            <a href="/help">Help</a>
          </li>
        </ul>
      </>,
    );
  }
  return renderPage(
    c,
    "Home",
    <>
      <h1>Welcome, {user.name}</h1>
      <Flash kind="notice" message={notice} />
      <p>
        Signed in as <strong>@{user.username}</strong>
        {user.isAdmin ? " (administrator)" : ""}. Two-factor authentication is{" "}
        <strong>{user.otpRequired ? "enabled" : "disabled"}</strong>.
      </p>
      <ul>
        <li>
          <a href="/profile/applications">Applications</a>: register OAuth applications and review the ones you authorized.
        </li>
        <li>
          <a href="/profile/personal_access_tokens">Personal access tokens</a>: tokens for scripts and git.
        </li>
        <li>
          <a href="/profile/two_factor_auth">Two-factor authentication</a>
        </li>
        <li>
          <a href="/profile/password/edit">Password</a>: change it; your other browsers are signed out.
        </li>
        <li>
          <a href="/profile/active_sessions">Active sessions</a>: the browsers signed in to your account.
        </li>
        <li>
          <a href="/profile/authentication_log">Authentication log</a>: your sign-ins and failed attempts.
        </li>
        <li>
          <a href="/-/demo/spa">Demo single-page app</a>
        </li>
        <li>
          <a href="/.well-known/openid-configuration">OpenID Connect discovery</a>: the issuer and endpoints an application configures itself from.
        </li>
        <li>
          <a href="/help">Help</a>: how to connect an application, the APIs, git and the registries.
        </li>
        <li>
          <a href="/help/deprecations">Deprecations and removals</a>
        </li>
      </ul>
    </>,
  );
});

export default home;
