import type { GitOperation } from "./access";
import { originFetch, repositoryStoragePath, type OriginSettings } from "./origin-client";

/**
 * Forwards an authorised git request to the origin as a stream both ways: packs are never held in
 * memory, so pushes and clones of any size pass through the Worker.
 */

/** Request headers git's smart protocol needs at the origin; everything else (Authorization first) stays here. */
const FORWARDED_REQUEST_HEADERS = ["content-type", "content-encoding", "content-length", "git-protocol", "accept", "user-agent"];
/** Hop-by-hop headers (RFC 9110 §7.6.1) are not copied from the origin's response. */
const HOP_BY_HOP = new Set(["connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade", "proxy-connection"]);

/** The git service of each operation the gateway authorizes. */
export const GIT_SERVICES: Record<GitOperation, "git-upload-pack" | "git-receive-pack"> = { fetch: "git-upload-pack", push: "git-receive-pack" };

/**
 * `gitPath` is info/refs, git-upload-pack or git-receive-pack; the repository is the project's by
 * id (./origin-client.ts). `op` is the operation the gateway authorized: the origin is sent the
 * service of that operation and never the client's query string, so the origin cannot serve
 * another service than the one authorized (git http-backend reads the last `service` of a query,
 * a query parser may read the first). `remoteUser` is who pushes (git http-backend enables
 * receive-pack only with REMOTE_USER); the signature covers it.
 */
export async function forwardToOrigin(
  origin: OriginSettings,
  req: Request,
  projectId: number,
  gitPath: "info/refs" | "git-upload-pack" | "git-receive-pack",
  op: GitOperation,
  remoteUser: string | null,
): Promise<Response> {
  const query = gitPath === "info/refs" ? `?service=${GIT_SERVICES[op]}` : "";
  const headers = new Headers();
  for (const name of FORWARDED_REQUEST_HEADERS) {
    const value = req.headers.get(name);
    if (value !== null) headers.set(name, value);
  }
  const upstream = await originFetch(origin, {
    method: req.method,
    target: `/${await repositoryStoragePath(projectId)}/${gitPath}${query}`,
    headers,
    body: req.method === "GET" || req.method === "HEAD" ? null : req.body,
    remoteUser,
  });
  const out = new Headers();
  upstream.headers.forEach((value, name) => {
    if (!HOP_BY_HOP.has(name.toLowerCase())) out.append(name, value);
  });
  return new Response(upstream.body, { status: upstream.status, statusText: upstream.statusText, headers: out });
}
