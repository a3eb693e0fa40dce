import { originFetch, repositoryStoragePath, type OriginSettings } from "./origin-client";

/**
 * Forwards an authorised git request to the origin as a stream both ways: packs are never held in
 * memory, so pushes and clones of any size pass through the Worker.
 */

/** Request headers git's smart protocol needs at the origin; everything else (Authorization first) stays here. */
const FORWARDED_REQUEST_HEADERS = ["content-type", "content-encoding", "content-length", "git-protocol", "accept", "user-agent"];
/** Hop-by-hop headers (RFC 9110 §7.6.1) are not copied from the origin's response. */
const HOP_BY_HOP = new Set(["connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade", "proxy-connection"]);

/**
 * `gitPath` is info/refs, git-upload-pack or git-receive-pack; the repository is the project's by
 * id (./origin-client.ts). `remoteUser` is who pushes (git http-backend enables receive-pack only
 * with REMOTE_USER); the signature covers it.
 */
export async function forwardToOrigin(
  origin: OriginSettings,
  req: Request,
  projectId: number,
  gitPath: string,
  remoteUser: string | null,
): Promise<Response> {
  const url = new URL(req.url);
  const headers = new Headers();
  for (const name of FORWARDED_REQUEST_HEADERS) {
    const value = req.headers.get(name);
    if (value !== null) headers.set(name, value);
  }
  const upstream = await originFetch(origin, {
    method: req.method,
    target: `/${await repositoryStoragePath(projectId)}/${gitPath}${url.search}`,
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
