import { fromBase64 } from "../crypto/random";

/** HTTP Basic credentials (RFC 7617) as git, docker and package clients send them: user name and password, UTF-8. */
export interface BasicCredentials {
  username: string;
  password: string;
}

/** null when the request carries no Basic credentials; malformed ones count as absent. */
export function parseBasic(header: string | null): BasicCredentials | null {
  if (!header) return null;
  const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (!m) return null;
  let decoded: string;
  try {
    decoded = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(fromBase64(m[1]));
  } catch {
    return null;
  }
  const i = decoded.indexOf(":");
  if (i < 0) return null;
  return { username: decoded.slice(0, i), password: decoded.slice(i + 1) };
}
