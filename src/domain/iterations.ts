import { catalogueEntry } from "../versioning/catalogue";
import { stateAt } from "../versioning/state";
import { AppError } from "./errors";

/** Iteration state derives from its dates (GitLab: 1 upcoming, 2 current — once "started" —, 3 closed). */
export type IterationState = "upcoming" | "current" | "closed";
export const STATE_NUMBER: Record<IterationState, number> = { upcoming: 1, current: 2, closed: 3 };

/** today, startDate and dueDate are YYYY-MM-DD (UTC); the dates are inclusive. */
export function iterationState(startDate: string, dueDate: string, today: string): IterationState {
  if (today < startDate) return "upcoming";
  if (today > dueDate) return "closed";
  return "current";
}

export const todayUtc = (now = Date.now()) => new Date(now).toISOString().slice(0, 10);

const stateParamError = (why: string) => new AppError("invalid", why, { param: "state" });

/**
 * The state filter: which states it selects, and whether it used the deprecated value started
 * (same as current below 15.0, refused from 15.0).
 */
export function parseIterationStateFilter(value: string | undefined, version: string): { states: IterationState[]; deprecated: boolean } {
  switch (value ?? "all") {
    case "all":
      return { states: ["upcoming", "current", "closed"], deprecated: false };
    case "opened":
      return { states: ["upcoming", "current"], deprecated: false };
    case "upcoming":
      return { states: ["upcoming"], deprecated: false };
    case "current":
      return { states: ["current"], deprecated: false };
    case "closed":
      return { states: ["closed"], deprecated: false };
    case "started":
      if (stateAt(catalogueEntry("iterations-state-started"), version) === "removed") {
        throw stateParamError("does not have a valid value; started was removed in 15.0, use current");
      }
      return { states: ["current"], deprecated: true };
  }
  throw stateParamError("does not have a valid value");
}
