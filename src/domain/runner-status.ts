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

export function runnerStatus(r: { contactedAt: number | null; createdAt: number; paused: boolean }, now: number, version: string): RunnerStatus {
  if (!removed("runner-status-legacy-values", version) && r.paused) return "paused";
  if (removed("runner-status-stale", version) && isStale(r, now)) return "stale";
  if (r.contactedAt === null) return removed("runner-status-never-contacted", version) ? "never_contacted" : "not_connected";
  return r.contactedAt > now - ONLINE_WINDOW_MS ? "online" : "offline";
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
