import fc from "fast-check";
import app from "../../src/app";
import { familyOf as serviceFamilyOf } from "../../src/http/families";
import { requestPattern } from "../../src/http/router";

/**
 * The model of the hostile-input sweep (issue 12): every route the app registers, sorted into its
 * API family, the hostile values the generators draw from, and what each family's answer must
 * look like. Routes are read from the app itself, so a new route is swept without editing this.
 */
export type Family = "rest" | "oauth" | "graphql" | "plugin" | "registry" | "git" | "pages";

export interface RouteTemplate {
  family: Family;
  method: string;
  path: string;
}

/**
 * The family of a route template or of a concrete path (as the URL parser normalised it): the
 * service's one table (src/http/families.ts). The sweep checks the authorization endpoint's HTML
 * among the OAuth family's answers (shapeDefect).
 */
export function familyOf(path: string): Family {
  const family = serviceFamilyOf(path);
  return family === "authorize" ? "oauth" : family;
}

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"];

/** Every distinct (method, path) the app answers, middleware excluded; ALL stands for every method. */
export function appRoutes(): RouteTemplate[] {
  const seen = new Map<string, RouteTemplate>();
  for (const r of app.routes) {
    if (r.path.endsWith("/*") && r.method === "ALL" && !r.path.startsWith("/api/v4")) continue; // middleware
    if (r.path.startsWith("/-/bench")) continue; // benchmark floor, off unless configured
    const methods = r.method === "ALL" ? METHODS : [r.method];
    // Project and git routes sit under the router's canonical prefixes (src/http/router.ts).
    const path = requestPattern(r.path);
    for (const method of methods) seen.set(`${method} ${path}`, { family: familyOf(path), method, path });
  }
  for (const t of REGISTRY_TEMPLATES) seen.set(`${t.method} ${t.path}`, t);
  return [...seen.values()];
}

/**
 * The OCI distribution API routes its own paths (src/registry/v2-routes.ts, one `/v2/*` mount), so
 * the app's route table shows only `/v2/*`; these are its routes, so that generated names and
 * references reach each handler behind a registry token.
 */
const REGISTRY_TEMPLATES: RouteTemplate[] = [
  ...["GET", "HEAD", "PUT", "DELETE"].map((method) => ({ method, path: "/v2/:name{.+}/manifests/:reference" })),
  ...["GET", "HEAD", "DELETE"].map((method) => ({ method, path: "/v2/:name{.+}/blobs/:digest" })),
  { method: "POST", path: "/v2/:name{.+}/blobs/uploads/" },
  ...["GET", "PATCH", "PUT", "DELETE"].map((method) => ({ method, path: "/v2/:name{.+}/blobs/uploads/:uuid" })),
  { method: "GET", path: "/v2/:name{.+}/tags/list" },
  { method: "GET", path: "/v2/:name{.+}/referrers/:digest" },
].map((t) => ({ ...t, family: "registry" as const }));

/** Segments that broke or could break path handling: encodings, number spellings, traversal. */
export const HOSTILE_SEGMENTS = [
  "%25", "%", "%E0%A4%A", "%00", "%2F", "%2f%2e%2e", "..", ".", "%2e%2e", "%201", " 1", "0x10", "1e3", "-1", "0", "01", "1.0",
  "99999999999999999999", "a".repeat(3000), "%F0%9F%92%A9", "null", "[]", "%5C", "%0A%0D", "%E2%80%AE", "a%2Fb", "x.git", "%C0%AF",
  "%zz", "%25zz", "%FF", "%ED%A0%80", "sha256:%zz", "sha256:" + "0".repeat(64),
];

const hex = (b: number) => `%${b.toString(16).padStart(2, "0").toUpperCase()}`;
/** Any bytes, percent-encoded: invalid UTF-8 and lone continuation bytes included. */
const encodedBytes = fc.uint8Array({ maxLength: 24 }).map((b) => [...b].map(hex).join(""));

export const segment = (known: string[]) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...HOSTILE_SEGMENTS) },
    { weight: 2, arbitrary: encodedBytes },
    { weight: 2, arbitrary: fc.constantFrom(...known) },
    { weight: 1, arbitrary: fc.stringMatching(/^[A-Za-z0-9._~-]{1,20}$/) },
  );

/** A path from a Hono template: each `:param` or `:param{regex}` becomes a generated segment. */
export function fillTemplate(path: string, values: string[]): string {
  let i = 0;
  const filled = path.replace(/:[A-Za-z_]+(\{[^}]*\})?/g, () => values[i++ % values.length]);
  return filled.replace(/\/\*$/, `/${values[i % values.length]}`);
}

const PARAM_NAMES = [
  "page", "per_page", "paused", "active", "id_after", "tags", "tags_count", "owned", "membership", "search", "order_by", "sort", "status",
  "type", "tag_list[]", "tag_list", "scopes[]", "user_id", "state", "revoked", "include_ancestors", "access_token", "private_token", "query",
  "variables", "extensions", "operationName", "redirect_to", "client_id", "response_type", "redirect_uri", "scope", "code_challenge",
  "code_challenge_method", "service", "grant_type", "token", "name", "content", "pagination",
];
const HOSTILE_VALUES = [
  "", "%", "%E0%A4%A", "%25", "True", "FALSE", "maybe", "-1", "0", "1e3", "0x10", " 1", "99999999999999999999", "[]", "{", "{}", "null",
  "a,b,,c", "%00", "%00abc", "abc%00def", "abc%01%1F%7F", "%22%00abc%22", "x".repeat(5000), "%7B%22a%22%3A", "query%20%7B", "%7B%7B%7B%7B%7B", "javascript:alert(1)", "//evil.example",
];
const queryValue = fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...HOSTILE_VALUES) }, { weight: 1, arbitrary: encodedBytes });

/** A raw query string (no encoding applied: the hostile spellings go out as they are). */
export const queryString = fc
  .array(fc.tuple(fc.oneof(fc.constantFrom(...PARAM_NAMES), fc.stringMatching(/^[a-z_[\]]{1,8}$/)), queryValue), { maxLength: 5 })
  .map((pairs) => (pairs.length ? `?${pairs.map(([k, v]) => `${k}=${v}`).join("&")}` : ""));

export interface GeneratedBody {
  contentType?: string;
  body?: BodyInit;
}

const deepJson = fc.integer({ min: 1000, max: 20000 }).map((n) => `{"a":${"[".repeat(n)}${"]".repeat(n)}}`);
const envelope = (payload: Uint8Array, declared = payload.byteLength) => {
  const out = new Uint8Array(5 + payload.byteLength);
  new DataView(out.buffer).setUint32(1, declared);
  out.set(payload, 5);
  return out;
};

/** YAML aliases of aliases: 10^depth nodes once expanded (issue 8 item 11). */
const aliasBomb = fc.integer({ min: 3, max: 9 }).map((depth) => {
  const names = "abcdefghij".slice(0, depth + 1).split("");
  const lines = names.map((n, i) => (i === 0 ? `${n}: &${n} [x, x, x, x, x, x, x, x, x, x]` : `${n}: &${n} [${Array(10).fill(`*${names[i - 1]}`).join(", ")}]`));
  return `${lines.join("\n")}\njob:\n  script: *${names[depth]}\n`;
});

export const requestBody: fc.Arbitrary<GeneratedBody> = fc.oneof(
  fc.constant<GeneratedBody>({}),
  fc.jsonValue({ maxDepth: 4 }).map((v) => ({ contentType: "application/json", body: JSON.stringify(v) })),
  fc.constantFrom('{"a":', "{", "[", '"x"', "nul", "\u0000").map((b) => ({ contentType: "application/json", body: b })),
  deepJson.map((b) => ({ contentType: "application/json", body: b })),
  fc.array(fc.tuple(fc.constantFrom(...PARAM_NAMES), queryValue), { maxLength: 5 }).map((pairs) => ({
    contentType: "application/x-www-form-urlencoded",
    body: pairs.map(([k, v]) => `${k}=${v}`).join("&"),
  })),
  fc.constantFrom<GeneratedBody>(
    { contentType: "multipart/form-data", body: '--x\r\nContent-Disposition: form-data; name="token"\r\n\r\nabc' },
    { contentType: "multipart/form-data; boundary=x", body: '--x\r\nContent-Disposition: form-data; name="token"\r\n\r\nabc' },
    { contentType: "multipart/form-data; boundary=x", body: "--x--" },
    { contentType: "multipart/form-data; boundary=", body: "" },
  ),
  fc.uint8Array({ maxLength: 64 }).chain((bytes) =>
    fc.constantFrom<GeneratedBody>(
      { contentType: "application/proto", body: bytes },
      { contentType: "application/connect+proto", body: envelope(bytes) },
      { contentType: "application/connect+proto", body: envelope(bytes, bytes.byteLength + 100) },
      { contentType: "application/grpc-web+proto", body: envelope(bytes) },
      { contentType: "application/grpc-web+proto", body: bytes },
      { contentType: "application/grpc", body: envelope(bytes) },
      { contentType: "application/octet-stream", body: bytes },
      { contentType: "application/x-git-upload-pack-request", body: bytes },
    ),
  ),
  fc.string({ maxLength: 400 }).map((q) => ({ contentType: "application/json", body: JSON.stringify({ query: q, variables: "{" }) })),
  fc.oneof(aliasBomb, fc.string({ maxLength: 200 })).map((content) => ({ contentType: "application/json", body: JSON.stringify({ content }) })),
  fc.constantFrom("{", "query {", "{".repeat(3000), "query { ".repeat(2000), "fragment A on Query { ...A } query { ...A }").map((q) => ({
    contentType: "application/json",
    body: JSON.stringify({ query: q }),
  })),
);

/** What a family's answer must look like; returns the defect found, or null. */
export async function shapeDefect(family: Family, method: string, path: string, res: Response): Promise<string | null> {
  if (res.status >= 500) return `status ${res.status}`;
  if (method === "HEAD" || res.status < 400 || res.status === 404 || res.status === 405) {
    // Success bodies are the routes' business; unmatched paths outside /api/v4 belong to the app's
    // one not-found handler. Only /api/v4 owns JSON 404/405 answers, checked below.
    const ownsNotFound = new URL(`http://localhost${path}`).pathname.startsWith("/api/v4");
    if (!ownsNotFound || res.status < 400 || method === "HEAD") return null;
  }
  const type = res.headers.get("content-type") ?? "";
  const text = await res.text();
  const json = () => {
    try {
      return JSON.parse(text) as Record<string, unknown>;
    } catch {
      return null;
    }
  };
  switch (family) {
    case "rest": {
      const body = json();
      if (!type.startsWith("application/json") || !body) return `REST ${res.status} not JSON: ${type} ${text.slice(0, 80)}`;
      return "message" in body || "error" in body ? null : `REST ${res.status} without message/error: ${text.slice(0, 80)}`;
    }
    case "oauth": {
      // The path as the server receives it: `/oauth/authorize/../x` is `/oauth/x`, a token-family path.
      if (/^\/oauth\/authorize(\/|$)/.test(new URL(`http://localhost${path}`).pathname)) return type.startsWith("text/html") ? null : `authorize ${res.status} not HTML`;
      const body = json();
      return body && typeof body.error === "string" ? null : `OAuth ${res.status} without error: ${text.slice(0, 80)}`;
    }
    case "graphql": {
      const body = json();
      return body && Array.isArray(body.errors) ? null : `GraphQL ${res.status} without errors: ${text.slice(0, 80)}`;
    }
    case "plugin": {
      if (res.headers.get("grpc-status")) return null;
      const body = json();
      return body && typeof body.code === "string" ? null : `Connect ${res.status} without code: ${type} ${text.slice(0, 80)}`;
    }
    case "registry": {
      // OCI distribution spec, "Error Codes"; the token service (/jwt/auth) answers the same shape.
      const body = json();
      return body && Array.isArray(body.errors) ? null : `registry ${res.status} without errors: ${text.slice(0, 80)}`;
    }
    case "git":
      if (res.status === 401 && !/^Basic /.test(res.headers.get("www-authenticate") ?? "")) return "git 401 without Basic challenge";
      return type.startsWith("text/plain") ? null : `git ${res.status} not text: ${type}`;
    case "pages":
      return type.startsWith("text/html") ? null : `page ${res.status} not HTML: ${type} ${text.slice(0, 80)}`;
  }
}
