/**
 * What a project, a user and an OAuth application own (DESIGN, "Changes that finish"; issue:
 * "ownership declared once"): each table with the parent's id column, and how a deletion of the
 * parent takes it away. test/db/ownership.test.ts reads the schema and fails when a table with a
 * `project_id`, `user_id` or `application_id` column is not declared here, and checks after the
 * deletion of a project, a user and an application that no table declared for it (other than
 * `kept`) holds anything of it.
 *
 * - `deleted`: the parent's deletion deletes the rows (src/db/project-changes.ts deleteProjectRows
 *   for a project; the change's effects, src/services/changes/effects.ts).
 * - `cascade`: a foreign key with ON DELETE CASCADE takes them with the parent row.
 * - `kept`: the rows outlive the parent on purpose (the reason says why).
 * - `contribution` (users only): what the user authored; GitLab's user deletion moves it to the
 *   ghost user, or deletes it with `hard_delete` (src/db/user-deletion.ts reads these entries).
 * - `reassigned` (users only): a reference to the user on someone else's row, always moved to the ghost user.
 */
export type Removal = { how: "deleted" | "cascade" | "contribution" | "reassigned" } | { how: "kept"; why: string };

export interface OwnedTable {
  table: string;
  column: string;
  removal: Removal;
}

export interface Ownership {
  tables: OwnedTable[];
  /** Storage outside D1 that goes with the parent. */
  elsewhere: string[];
}

const deleted: Removal = { how: "deleted" };
const cascade: Removal = { how: "cascade" };
const contribution: Removal = { how: "contribution" };
const reassigned: Removal = { how: "reassigned" };

export const OWNERSHIP: Record<"project" | "user" | "application", Ownership> = {
  project: {
    tables: [
      { table: "deploy_tokens", column: "project_id", removal: deleted },
      { table: "issues", column: "project_id", removal: deleted },
      { table: "security_report_findings", column: "project_id", removal: deleted },
      { table: "managed_licenses", column: "project_id", removal: deleted },
      { table: "merge_requests", column: "project_id", removal: deleted },
      { table: "external_status_checks", column: "project_id", removal: deleted },
      { table: "ci_pipelines", column: "project_id", removal: deleted },
      { table: "packages", column: "project_id", removal: deleted },
      { table: "registry_repositories", column: "project_id", removal: deleted },
      { table: "runner_projects", column: "project_id", removal: deleted },
      {
        table: "registry_uploads",
        column: "project_id",
        removal: { how: "kept", why: "an upload session in flight is swept by the registry's cron sweep with its R2 chunks (docs/registries.md, Sweeping)" },
      },
    ],
    elsewhere: ["R2: the package files of its packages (deleted before their rows)", "the git repository at the origin (src/git/provisioning.ts)"],
  },
  user: {
    tables: [
      { table: "sessions", column: "user_id", removal: cascade },
      { table: "personal_access_tokens", column: "user_id", removal: cascade },
      { table: "oauth_token_families", column: "user_id", removal: cascade },
      { table: "oauth_device_grants", column: "user_id", removal: { how: "kept", why: "an approved device code names the user until it expires (RFC 8628); a block or deactivation ends the approval first" } },
      { table: "ci_pipelines", column: "user_id", removal: contribution },
      { table: "merge_requests", column: "author_id", removal: contribution },
      { table: "issues", column: "author_id", removal: contribution },
      { table: "merge_requests", column: "merge_user_id", removal: reassigned },
      { table: "runners", column: "creator_id", removal: reassigned },
      { table: "projects", column: "creator_id", removal: reassigned },
      { table: "oauth_applications", column: "owner_id", removal: deleted },
      { table: "plugins", column: "owner_id", removal: cascade },
      { table: "plugin_files", column: "owner_id", removal: cascade },
      { table: "audit_events", column: "author_id", removal: { how: "kept", why: "the audit trail keeps who acted (GitLab keeps audit events of deleted users)" } },
      { table: "plugin_call_results", column: "user_id", removal: { how: "kept", why: "idempotency answers live 10 minutes and are swept" } },
      { table: "members", column: "user_id", removal: cascade },
      { table: "sign_in_addresses", column: "user_id", removal: cascade },
      { table: "user_otp_state", column: "user_id", removal: cascade },
      { table: "ssh_keys", column: "user_id", removal: cascade },
      { table: "oidc_backchannel_logouts", column: "user_id", removal: { how: "kept", why: "a queued logout notice outlives the user: the client must still learn that the session ended (it is delivered or fails, then swept)" } },
    ],
    elsewhere: [
      "the Durable Objects of their OAuth grants and personal access tokens (revoked, not deleted)",
      "the projects of their personal namespace (each deleted by its own project_deleted change: R2 objects, rows, git repository)",
    ],
  },
  application: {
    tables: [
      { table: "oauth_token_families", column: "application_id", removal: cascade },
      { table: "oauth_pushed_requests", column: "application_id", removal: cascade },
      { table: "oauth_client_assertion_jtis", column: "application_id", removal: cascade },
      { table: "oidc_backchannel_logouts", column: "application_id", removal: cascade },
      { table: "oauth_device_grants", column: "application_id", removal: { how: "kept", why: "a device code of a deleted application cannot be redeemed (its client is gone) and expires (RFC 8628)" } },
    ],
    elsewhere: ["the Durable Objects of its grants (revoked first, src/services/changes/effects.ts application_deleted)"],
  },
};
