/**
 * What a plugin's registration may name (docs/plugin-protocol.md, "Header"; DESIGN, "Plugin RPC
 * protocol"): its name, the core's reserved name, and where it is reached. Plain rules, shared by
 * the Plugin RPC service (the envelope, the gateway) and the REST API that registers plugins.
 */

/** The name the service itself answers to in a Header's From and To. */
export const CORE = "core";
const NAME_RE = /^[a-z0-9][a-z0-9._-]{0,63}$/;

export function isPluginName(name: string): boolean {
  return NAME_RE.test(name);
}

/**
 * Why an endpoint cannot be registered, or null: `service:<BINDING>` (a service binding of this
 * Worker), an https URL, or an http URL on a loopback host; empty is an in-process plugin.
 */
export function endpointProblem(endpoint: string): string | null {
  if (endpoint === "") return null;
  if (/^service:[A-Z][A-Z0-9_]*$/.test(endpoint)) return null;
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return "endpoint must be service:<BINDING> or an http(s) URL";
  }
  if (url.protocol === "https:") return null;
  if (url.protocol === "http:" && ["127.0.0.1", "localhost", "[::1]"].includes(url.hostname)) return null;
  return "endpoint must be service:<BINDING>, an https URL, or an http URL on a loopback host";
}
