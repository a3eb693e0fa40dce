import { callAt } from "../helpers/versioned";

/** A GraphQL request to /api/graphql at a service version (default: the newest, 16.0). */
export async function gql(
  query: string,
  opts: { variables?: Record<string, unknown>; token?: string; version?: string; headers?: Record<string, string> } = {},
  // The body is whatever the server sent; tests assert on its shape.
): Promise<{ status: number; headers: Headers; body: any }> {
  const res = await callAt(opts.version ?? "16.0", "/api/graphql", {
    method: "POST",
    token: opts.token,
    headers: { "Content-Type": "application/json", Accept: "application/json", ...opts.headers },
    body: JSON.stringify({ query, variables: opts.variables }),
  });
  const text = await res.text();
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error(`non-JSON GraphQL answer ${res.status}: ${text.slice(0, 200)}`);
  }
  return { status: res.status, headers: res.headers, body };
}

/** The field names of a type at a version, by introspection. */
export async function fieldsOf(typeName: string, version: string, token?: string): Promise<string[] | null> {
  const r = await gql(`query($n: String!) { __type(name: $n) { fields(includeDeprecated: true) { name } inputFields { name } } }`, {
    variables: { n: typeName },
    version,
    token,
  });
  const t = r.body.data?.__type;
  if (!t) return null;
  return (t.fields ?? t.inputFields ?? []).map((f: { name: string }) => f.name);
}
