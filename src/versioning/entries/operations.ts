import type { CatalogueEntry } from "../catalogue-entry";

/**
 * Configuration, operations, authentication and event rows of the schedule. None of these changes
 * an API answer of this service (affectsApi false); they are listed so the catalogue holds every row.
 */
const M15 = "2022-05-22";

function op(
  id: string,
  iface: CatalogueEntry["interface"],
  title: string,
  change: string,
  replacement: string | null,
  removedIn = "15.0",
  date: string | null = M15,
  deprecatedIn: string | null = "14.0",
): CatalogueEntry {
  return { id, interface: iface, title, change, deprecatedIn, removedIn, date, replacement, affectsApi: false };
}

export const OPERATIONS_CHANGES: CatalogueEntry[] = [
  // Authentication
  op(
    "dependency-proxy-private-groups-flag",
    "authentication",
    "Feature flag dependency_proxy_for_private_groups",
    "The flag is removed; use of the dependency proxy requires authentication.",
    "authenticate to the dependency proxy",
    "15.0",
    M15,
    "14.5",
  ),
  op(
    "pat-ssh-expiry-enforcement",
    "authentication",
    "Switching off enforcement of personal access token and SSH key expiry",
    "Expiry of personal access tokens and SSH keys is always enforced.",
    "rotate tokens and keys before they expire",
    "15.0",
    M15,
    "14.8",
  ),
  op(
    "kerberos-password-login",
    "authentication",
    "Password-based Kerberos login integration",
    "Removed; the SPNEGO-based integration stays.",
    "Kerberos SPNEGO",
    "15.0",
    M15,
    "14.3",
  ),
  op(
    "ci-job-jwt-v2",
    "authentication",
    "CI_JOB_JWT",
    "CI_JOB_JWT changes to match CI_JOB_JWT_V2.",
    "CI_JOB_JWT_V1 to keep the old behaviour",
    "15.0",
    M15,
    "14.8",
  ),
  // Events
  op(
    "audit-events-repository-push",
    "events",
    "Audit events for repository push events (feature flag, off by default)",
    "The audit events are removed.",
    null,
    "15.0",
    M15,
    "14.3",
  ),
  // Versioning table: operations
  op("runner-ssh-disable-strict-host-key-checking", "operations", "Runner SSH executor setting disable_strict_host_key_checking", "The default changes from true to false.", "set disable_strict_host_key_checking explicitly"),
  op("runner-s3-cache-authentication-type", "operations", "Runner S3 cache setting AuthenticationType", "Must be set explicitly to IAM or credentials.", "AuthenticationType = IAM or credentials"),
  op("ctl-promote-commands", "operations", "Command-line promote commands service-ctl promote-db and promote-to-primary-node", "The old commands stop working.", "service-ctl promote"),
  op("geo-db-rake-tasks", "operations", "Custom Geo rake tasks geo:db:*", "Removed.", "db:*:geo (for example db:migrate:geo)"),
  op("admin-geo-routes", "operations", "Admin routes /admin/geo/projects and /admin/geo/designs", "Removed.", "/admin/geo/replication/projects and /admin/geo/replication/designs"),
  op("storage-git-config-env", "operations", "Environment variables GIT_CONFIG_SYSTEM and GIT_CONFIG_GLOBAL for storage configuration", "Replaced.", "config.toml"),
  op("push-rules-supersede-code-owners-flag", "operations", "Feature flag PUSH_RULES_SUPERSEDE_CODE_OWNERS", "Removed; push rules then supersede code owners.", null),
  op("storage-grpc-aware-proxies", "operations", "gRPC-aware proxies between the storage service and the rest of the service", "Unsupported.", "layer-4 TCP or TLS proxying"),
  op("nfs-repository-storage", "operations", "NFS for Git repository storage", "No development since 14.0; support removed.", "the storage service (Gitaly)"),
  op("certificate-based-clusters", "operations", "Certificate-based cluster integration", "Removed in two steps, finishing 15.6.", "the agent for Kubernetes", "15.6", "2022-11-22", "14.5"),
  op(
    "removed-features-15-0",
    "operations",
    "Request profiling, pseudonymizer, static site editor, tracing, logging, metrics through an external monitoring server, network and host security, vulnerability check, serverless",
    "Removed.",
    null,
  ),
  op("search-engine-6-8", "operations", "Search engine version 6.8", "Removed; 7.x is required.", "search engine 7.x"),
  op("os-package-older-release", "operations", "Distribution package for one older operating-system release", "No longer built.", "a supported operating-system release", "14.8", "2022-02-22", "14.0"),
  op("release-cli-s3-distribution", "operations", "Release CLI S3 distribution", "Stops.", "the package registry distribution", "14.6", "2021-12-22", "14.2"),
  op("task-runner-renamed-toolbox", "operations", "Task-runner pod and sub-chart", "Renamed toolbox.", "toolbox", "14.5", "2021-11-22", "14.0"),
  op("election-strategy-per-repository", "operations", "Gitaly-style election strategy per_repository", "Removed.", "the default election strategy", "14.9", "2022-03-22", "14.0"),
];
