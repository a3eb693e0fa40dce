import { catalogueEntry } from "../versioning/catalogue";
import { stateAt } from "../versioning/state";
import { AppError } from "./errors";

/**
 * Runner status by service version (spec part b, States and transitions; Limits: staleness is no
 * contact for three months). Pure: takes the runner's times, the clock and the version.
 */
export const ONLINE_WINDOW_MS = 2 * 3600_000;
/** GitLab's 3.months. */
export const STALE_AFTER_MS = 90 * 86400_000;

export type RunnerStatus = "online" | "offline" | "stale" | "never_contacted" | "not_connected" | "paused";
export type RunnerType = "instance_type" | "group_type" | "project_type";
export const RUNNER_TYPES: readonly RunnerType[] = ["instance_type", "group_type", "project_type"];

const removed = (id: string, version: string) => stateAt(catalogueEntry(id), version) === "removed";
/** A replacement exists once its change is announced as deprecated (for example paused from 14.8). */
export const replacementAvailable = (id: string, version: string) => stateAt(catalogueEntry(id), version) !== "announced";

export function isStale(r: { contactedAt: number | null; createdAt: number }, now: number): boolean {
  return r.contactedAt !== null ? r.contactedAt <= now - STALE_AFTER_MS : r.createdAt <= now - STALE_AFTER_MS;
}

/**
 * Which side of the three runner-status changes of the schedule a surface serves. REST and GraphQL
 * have their own catalogue rows (the same milestones); the rule that reads them is this one.
 */
export interface RunnerStatusRules {
  /** Below 15.0 a paused runner reports paused. */
  legacyValues: boolean;
  /** From 15.0 stale is reported (and splits offline and never contacted). */
  staleReported: boolean;
  /** From 15.0 never_contacted replaces not_connected. */
  neverContacted: boolean;
}

/** The catalogue rows behind each rule, per surface. */
export const STATUS_CHANGE_IDS = {
  rest: { legacyValues: "runner-status-legacy-values", staleReported: "runner-status-stale", neverContacted: "runner-status-never-contacted" },
  graphql: {
    legacyValues: "graphql-runner-status-legacy-values",
    staleReported: "graphql-runner-status-stale",
    neverContacted: "graphql-runner-status-never-contacted",
  },
} as const;
export type StatusSurface = keyof typeof STATUS_CHANGE_IDS;

/** The rules a surface serves at a service version. */
export function statusRulesAt(surface: StatusSurface, version: string): RunnerStatusRules {
  const ids = STATUS_CHANGE_IDS[surface];
  return { legacyValues: !removed(ids.legacyValues, version), staleReported: removed(ids.staleReported, version), neverContacted: removed(ids.neverContacted, version) };
}

/** A runner's status and the catalogue rows of the deprecated meanings it was reported with. */
export interface StatusReport {
  status: RunnerStatus;
  deprecated: string[];
}

/**
 * The one runner status rule (spec part b, States and transitions), for REST (lower case) and
 * GraphQL (upper case): the status, and which deprecated meanings the answer relies on so that
 * the surface can announce them (Deprecation header, GraphQL extensions).
 */
export function reportStatus(r: { contactedAt: number | null; createdAt: number; paused: boolean }, now: number, surface: StatusSurface, version: string): StatusReport {
  const rules = statusRulesAt(surface, version);
  const ids = STATUS_CHANGE_IDS[surface];
  const status = runnerStatus(r, now, rules);
  const deprecated: string[] = [];
  if (status === "paused") deprecated.push(ids.legacyValues);
  if (status === "not_connected") deprecated.push(ids.neverContacted);
  // Below 15.0 a runner silent for three months is still offline or not_connected, not stale.
  if ((status === "offline" || status === "not_connected") && isStale(r, now)) deprecated.push(ids.staleReported);
  return { status, deprecated };
}

export function runnerStatus(r: { contactedAt: number | null; createdAt: number; paused: boolean }, now: number, rules: RunnerStatusRules): RunnerStatus {
  if (rules.legacyValues && r.paused) return "paused";
  if (rules.staleReported && isStale(r, now)) return "stale";
  if (r.contactedAt === null) return rules.neverContacted ? "never_contacted" : "not_connected";
  return isOnline(r.contactedAt, now) ? "online" : "offline";
}

export const isOnline = (contactedAt: number | null, now: number) => contactedAt !== null && contactedAt > now - ONLINE_WINDOW_MS;

/** A status filter, as the list query needs it. */
export type StatusFilter =
  | { kind: "contact"; value: "online" | "offline" | "stale" | "never_contacted"; deprecatedId?: string }
  | { kind: "paused"; paused: boolean; deprecatedId: string };

/** A filter value the version refuses: GitLab's `{"error":"status <why>"}`. */
const statusParamError = (why: string) => new AppError("invalid", why, { param: "status" });

/** Which status filter values a version accepts, and what each means. */
export function parseStatusFilter(value: string, version: string): StatusFilter {
  switch (value) {
    case "online":
      return { kind: "contact", value };
    case "offline":
      // Below 15.0 offline still holds the runners silent for three months (the deprecated meaning).
      return removed("runner-status-stale", version) ? { kind: "contact", value } : { kind: "contact", value, deprecatedId: "runner-status-stale" };
    case "stale":
    case "never_contacted":
      // Accepted as filters from 14.6, when the new values were announced.
      if (!replacementAvailable("runner-status-stale", version)) break;
      return { kind: "contact", value };
    case "not_connected":
      if (removed("runner-status-never-contacted", version)) {
        throw statusParamError("does not have a valid value; use never_contacted");
      }
      return { kind: "contact", value: "never_contacted", deprecatedId: "runner-status-never-contacted" };
    case "active":
    case "paused":
      if (removed("runner-status-filter-active-paused", version)) {
        throw statusParamError(`does not accept ${value}; use paused=${value === "paused"}`);
      }
      return { kind: "paused", paused: value === "paused", deprecatedId: "runner-status-filter-active-paused" };
  }
  throw statusParamError("does not have a valid value");
}

/** The contact statuses a listing filters on (REST ?status= and ?scope=, GraphQL status:). */
export type ContactStatus = "online" | "offline" | "stale" | "never_contacted";
