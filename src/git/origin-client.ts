import { getConfig } from "../config";
import { AppError, reasonOf } from "../domain/errors";
import { sha256Hex } from "../crypto/hash";
import type { Bindings } from "../env";
import { randomBytes, toHex } from "../crypto/random";
import { SIGNATURE_HEADERS, UNSIGNED_PAYLOAD, sha256HexOf, signParts } from "./origin-signature";

/**
 * The Worker's side of the git origin (docs/git.md, "The origin"): where a project's repository
 * lives there, and every request to it signed with GIT_ORIGIN_SECRET (./origin-signature.ts).
 */

export interface OriginSettings {
  /** GIT_ORIGIN: empty when git is not configured. */
  url: string;
  /** GIT_ORIGIN_SECRET. */
  secret: string;
}

export function originSettings(env: Bindings): OriginSettings {
  const config = getConfig(env);
  return { url: config.gitOrigin, secret: config.gitOriginSecret };
}

export const ORIGIN_UNAVAILABLE_REASONS = ["not_configured", "unreachable", "refused"] as const;
export type OriginUnavailableReason = (typeof ORIGIN_UNAVAILABLE_REASONS)[number];

/** The origin is not configured (503), or did not answer or refused our signature (502). */
export const gitOriginUnavailable = (reason: OriginUnavailableReason) =>
  new AppError(reason === "not_configured" ? "unavailable" : "bad_gateway", "The git storage is unavailable; try again later.", { reason });

/** Why the origin was unavailable, when `err` says so; null for any other error. */
export const originUnavailableReason = (err: unknown) => reasonOf(err, ORIGIN_UNAVAILABLE_REASONS);

/**
 * A project's repository at the origin, by id as GitLab's hashed storage names it: renaming or
 * moving a project or its group never moves the repository, and ids are never reused
 * (AUTOINCREMENT), so a repository left behind by a failed deletion is never served again.
 */
export async function repositoryStoragePath(projectId: number): Promise<string> {
  const h = await sha256Hex(String(projectId));
  return `@hashed/${h.slice(0, 2)}/${h.slice(2, 4)}/${h}.git`;
}

export interface OriginRequest {
  method: string;
  /** Path and query at the origin, starting with "/". */
  target: string;
  headers?: Headers;
  /** A small body that is hashed into the signature, or a stream sent as UNSIGNED-PAYLOAD. */
  body?: string | ReadableStream | null;
  remoteUser?: string | null;
}

/** Sends one signed request; an unavailable-origin AppError when it is not configured, unreachable, or refuses the signature. */
export async function originFetch(origin: OriginSettings, r: OriginRequest): Promise<Response> {
  if (!origin.url) throw gitOriginUnavailable("not_configured");
  const headers = r.headers ?? new Headers();
  const date = Math.floor(Date.now() / 1000);
  const nonce = toHex(randomBytes(16));
  const contentSha256 = typeof r.body === "string" ? await sha256HexOf(r.body) : r.body ? UNSIGNED_PAYLOAD : await sha256HexOf("");
  const remoteUser = r.remoteUser ?? "";
  const signature = await signParts(origin.secret, { method: r.method, target: r.target, date, nonce, remoteUser, contentSha256 });
  headers.set(SIGNATURE_HEADERS.date, String(date));
  headers.set(SIGNATURE_HEADERS.nonce, nonce);
  headers.set(SIGNATURE_HEADERS.contentSha256, contentSha256);
  headers.set(SIGNATURE_HEADERS.signature, signature);
  if (remoteUser) headers.set("X-Remote-User", remoteUser);
  let res: Response;
  try {
    res = await fetch(`${origin.url.replace(/\/+$/, "")}${r.target}`, { method: r.method, headers, body: r.body ?? undefined, redirect: "manual" });
  } catch {
    throw gitOriginUnavailable("unreachable");
  }
  // The origin answers 401 only to a signature it refuses: a secret that differs, or clocks apart.
  if (res.status === 401) {
    console.error(`git origin refused the Worker's signature: ${(await res.text()).trim()}`);
    throw gitOriginUnavailable("refused");
  }
  return res;
}
