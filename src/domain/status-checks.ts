import { catalogueEntry } from "../versioning/catalogue";
import { stateAt } from "../versioning/state";
import { AppError } from "./errors";

/**
 * Outcome of an external status-check response by version (spec part b, Errors): from 15.0 status
 * is required (422 without it) and only pass passes; below 15.0 status is optional and approved or
 * passed pass.
 */
export type CheckOutcome = "passed" | "failed";

// 422 with GitLab's message when status is missing; 400 `{"error":"status does not have a valid value"}`.
const statusRequired = () => new AppError("unprocessable", "status is missing; send status=pass (or failed)", { reason: "status_required" });
const statusInvalid = () => new AppError("invalid", "does not have a valid value", { param: "status" });

export function statusCheckOutcome(status: string | undefined, version: string): { outcome: CheckOutcome; deprecatedIds: string[] } {
  const removed = (id: string) => stateAt(catalogueEntry(id), version) === "removed";
  if (status === undefined || status === "") {
    if (removed("status-check-status-required")) throw statusRequired();
    return { outcome: "passed", deprecatedIds: ["status-check-status-required"] };
  }
  if (removed("status-check-pass-only")) return { outcome: status === "pass" ? "passed" : "failed", deprecatedIds: [] };
  if (status === "approved" || status === "passed") return { outcome: "passed", deprecatedIds: ["status-check-pass-only"] };
  if (status === "pass") return { outcome: "passed", deprecatedIds: [] };
  if (status === "failed") return { outcome: "failed", deprecatedIds: [] };
  throw statusInvalid();
}
