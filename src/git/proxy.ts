import { AppError } from "../domain/errors";
/**
 * Forwards an authorised git request to the origin as a stream both ways: packs are never held in
 * memory, so pushes and clones of any size pass through the Worker.
 */

/** Request headers git's smart protocol needs at the origin; everything else (Authorization first) stays here. */
const FORWARDED_REQUEST_HEADERS = ["content-type", "content-encoding", "content-length", "git-protocol", "accept", "user-agent"];
/** Hop-by-hop headers (RFC 9110 §7.6.1) are not copied from the origin's response. */
const HOP_BY_HOP = new Set(["connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade", "proxy-connection"]);

/** The header that tells the origin who pushes (git http-backend enables receive-pack only with REMOTE_USER). */
export const REMOTE_USER_HEADER = "X-Remote-User";

/** The origin is not configured (503) or did not answer (502). */
const originUnavailable = (reason: "not_configured" | "unreachable") =>
  new AppError(reason === "not_configured" ? "unavailable" : "bad_gateway", "The git storage is unavailable; try again later.", { reason });

export async function forwardToOrigin(
  origin: string,
  req: Request,
  originPath: string,
  remoteUser: string | null,
): Promise<Response> {
  if (!origin) throw originUnavailable("not_configured");
  const url = new URL(req.url);
  const target = `${origin.replace(/\/+$/, "")}${originPath}${url.search}`;
  const headers = new Headers();
  for (const name of FORWARDED_REQUEST_HEADERS) {
    const value = req.headers.get(name);
    if (value !== null) headers.set(name, value);
  }
  if (remoteUser) headers.set(REMOTE_USER_HEADER, remoteUser);
  let upstream: Response;
  try {
    upstream = await fetch(target, {
      method: req.method,
      headers,
      body: req.method === "GET" || req.method === "HEAD" ? undefined : req.body,
      redirect: "manual",
    });
  } catch {
    throw originUnavailable("unreachable");
  }
  const out = new Headers();
  upstream.headers.forEach((value, name) => {
    if (!HOP_BY_HOP.has(name.toLowerCase())) out.append(name, value);
  });
  return new Response(upstream.body, { status: upstream.status, statusText: upstream.statusText, headers: out });
}
