import { listSessionsOfUser } from "../../credentials/session";
import { describeUserAgent } from "../../domain/user-agent";
import { RevokeForm, TableHead } from "../components";
import { Flash, formatDate, renderPage, sessionActor, setFlash, takeFlash, type PageEnv } from "../page";
import { csrfToken, currentSessionIdHash, revokeOtherSession } from "../session";
import { pageApp } from "../door";
import { signOutEverywhere } from "../../services/accounts/sign-out-everywhere";

/**
 * /profile/active_sessions (GitLab's page): every signed-in browser of the user with its browser,
 * address, sign-in and last request; the current one is marked and has no Revoke (sign out does
 * that). A session is named by its stored SHA-256, never by the cookie value. "Sign out
 * everywhere" ends every other session and every OAuth grant at once.
 */
const activeSessions = pageApp({ enter: "signed-in" });

activeSessions.get("/profile/active_sessions", async (c) => {
  const rows = await listSessionsOfUser(c.env, c.var.user.id, Date.now());
  const current = await currentSessionIdHash(c);
  const token = await csrfToken(c);
  return renderPage(
    c,
    "Active sessions",
    <>
      <h1>Active sessions</h1>
      <Flash kind="notice" message={takeFlash(c)} />
      <p>Browsers signed in to your account. Revoke a session you do not recognise, then change your password.</p>
      <table>
        <TableHead columns={["Browser", "IP address", "Signed in", "Last seen"]} action />
        <tbody>
          {rows.map((s) => (
            <tr data-session={s.idHash === current ? "current" : "other"}>
              <td>
                {describeUserAgent(s.userAgent)}
                {s.idHash === current ? <strong class="badge"> This is your current session</strong> : null}
              </td>
              <td>{s.ipAddress ?? "Unknown"}</td>
              <td>{formatDate(s.createdAt)}</td>
              <td>{formatDate(s.lastSeenAt ?? s.createdAt)}</td>
              <td>
                {s.idHash === current ? null : (
                  <RevokeForm
                    action={`/profile/active_sessions/${s.idHash}/revoke`}
                    confirm="Are you sure? The device will be signed out of GitLab."
                    label={`Revoke the session of ${describeUserAgent(s.userAgent)} signed in ${formatDate(s.createdAt)}`}
                    token={token}
                  />
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <h2>Sign out everywhere</h2>
      <p>Ends every other browser session and every application or device you signed in to with your account (OAuth). This browser stays signed in; personal access tokens are kept.</p>
      <RevokeForm
        action="/profile/active_sessions"
        confirm="Are you sure? Every other browser, application and device will be signed out of GitLab."
        label="Sign out everywhere else"
        button="Sign out everywhere"
        token={token}
      />
    </>,
  );
});

activeSessions.post("/profile/active_sessions/:id/revoke", async (c) => {
  const id = c.req.param("id");
  const user = c.var.user;
  // The current session is ended by signing out, which also clears the cookie.
  // Ended as a change with its audit row, like a sign-out (src/services/logout/session-end.ts).
  const ended = id !== (await currentSessionIdHash(c)) && (await revokeOtherSession(c, user.id, id));
  setFlash(c, ended ? "The session was revoked." : "No such session.");
  return c.redirect("/profile/active_sessions", 303);
});

/**
 * Sign out everywhere: a POST to the page itself (the router cannot hold a fixed name beside
 * `/:id/revoke`). Every other session and every OAuth grant end
 * (src/services/accounts/sign-out-everywhere.ts); sign-in and CSRF are the page door's (pageApp).
 */
activeSessions.post("/profile/active_sessions", async (c) => {
  await signOutEverywhere(c.env, sessionActor(c), await currentSessionIdHash(c));
  setFlash(c, "You were signed out everywhere else.");
  return c.redirect("/profile/active_sessions", 303);
});

export default activeSessions;
