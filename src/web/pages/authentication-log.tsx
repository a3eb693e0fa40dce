import { listAuditEvents, type AuditAction } from "../../db/audit";
import { getDb } from "../../db/client";
import { TableHead } from "../components";
import { formatDate, renderPage, type PageEnv } from "../page";
import { pageApp } from "../door";

/**
 * /profile/authentication_log (GitLab's "Authentication log"): the user's own sign-ins, failures,
 * lockouts and account changes, read from the audit events already recorded, newest first.
 */
const authenticationLog = pageApp({ enter: "signed-in" });

const PER_PAGE = 50;

const DESCRIPTIONS: Partial<Record<AuditAction, string>> = {
  sign_in: "Signed in",
  failed_sign_in: "Failed sign-in attempt",
  lockout: "Account locked after failed sign-in attempts",
  sign_out: "Signed out",
  two_factor_enabled: "Two-factor authentication enabled",
  two_factor_disabled: "Two-factor authentication disabled",
  password_changed: "Password changed",
  session_revoked: "A session was revoked",
  signed_out_everywhere: "Signed out everywhere else",
  user_blocked: "Account blocked by an administrator",
  user_unblocked: "Account unblocked by an administrator",
  user_deactivated: "Account deactivated by an administrator",
  user_activated: "Account activated",
};
const ACTIONS = Object.keys(DESCRIPTIONS) as AuditAction[];

/** How the event happened, from its details (never a secret: audit details hold none). */
function how(details: string): string {
  try {
    const d = JSON.parse(details) as { method?: string; reason?: string };
    const method = { password: "with a password", two_factor: "with a two-factor code", recovery_code: "with a recovery code" }[d.method ?? ""];
    return method ?? (d.reason ? d.reason.replace(/_/g, " ") : "");
  } catch {
    return "";
  }
}

authenticationLog.get("/profile/authentication_log", async (c) => {
  const user = c.var.user;
  const pageNo = Math.max(1, Math.min(10_000, Number.parseInt(c.req.query("page") ?? "1", 10) || 1));
  const { rows, hasNext } = await listAuditEvents(getDb(c.env.DB), {
    offset: (pageNo - 1) * PER_PAGE,
    limit: PER_PAGE,
    entityType: "user",
    entityId: String(user.id),
    actions: ACTIONS,
  });
  return renderPage(
    c,
    "Authentication log",
    <>
      <h1>Authentication log</h1>
      <p>Sign-ins and changes to how you sign in, newest first. If you see one you do not recognise, change your password and revoke your other sessions.</p>
      {rows.length === 0 ? (
        <p>No events yet.</p>
      ) : (
        <table>
          <TableHead columns={["Event", "How", "IP address", "Date"]} />
          <tbody>
            {rows.map(({ event }) => (
              <tr>
                <td>{DESCRIPTIONS[event.action as AuditAction] ?? event.action}</td>
                <td>{how(event.details)}</td>
                <td>{event.ipAddress ?? "Unknown"}</td>
                <td>{formatDate(event.createdAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <nav aria-label="Pages">
        {pageNo > 1 ? <a href={`/profile/authentication_log?page=${pageNo - 1}`}>Newer</a> : null}{" "}
        {hasNext ? <a href={`/profile/authentication_log?page=${pageNo + 1}`}>Older</a> : null}
      </nav>
    </>,
  );
});

export default authenticationLog;
