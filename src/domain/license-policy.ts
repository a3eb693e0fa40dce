import { catalogueEntry } from "../versioning/catalogue";
import { stateAt } from "../versioning/state";
import { AppError } from "./errors";

/**
 * License-policy approval names by version (spec part b): allowed/denied; the old approved and
 * blacklisted are accepted below 15.0 (deprecated) and answered there, refused from 15.0.
 */
export type ApprovalStatus = "allowed" | "denied";
const OLD: Record<ApprovalStatus, string> = { allowed: "approved", denied: "blacklisted" };
const ID = "managed-licenses-approval-names";
const removed = (version: string) => stateAt(catalogueEntry(ID), version) === "removed";

const approvalStatusError = (why: string) => new AppError("invalid", why, { param: "approval_status" });

export function parseApprovalStatus(value: string, version: string): ApprovalStatus {
  if (value === "allowed" || value === "denied") return value;
  if (value === "approved" || value === "blacklisted") {
    if (removed(version)) throw approvalStatusError(`does not have a valid value; ${value} was removed in 15.0, use ${value === "approved" ? "allowed" : "denied"}`);
    return value === "approved" ? "allowed" : "denied";
  }
  throw approvalStatusError("does not have a valid value");
}

/** The name a response uses at the version. */
export const approvalStatusName = (status: ApprovalStatus, version: string): string => (removed(version) ? status : OLD[status]);
/** True when responses at the version still use the deprecated names. */
export const usesOldNames = (version: string) => !removed(version);
