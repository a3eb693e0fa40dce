import { formText } from "../http/form-text";

/**
 * GraphQL over HTTP carries `variables` and `extensions` as JSON text in a GET query string or a
 * form body. graphql-yoga parses them with a bare JSON.parse, so malformed text (issue 8 item 10)
 * would surface as a 500; this checks them first. Returns what is wrong, or null.
 */
const JSON_PARAMS = ["variables", "extensions"] as const;

export async function malformedJsonParam(req: Request): Promise<string | null> {
  let params: URLSearchParams;
  if (req.method === "GET") params = new URL(req.url).searchParams;
  else if (/^application\/x-www-form-urlencoded/i.test(req.headers.get("content-type") ?? "")) params = new URLSearchParams(await formText(req.clone()));
  else return null;
  for (const name of JSON_PARAMS) {
    const text = params.get(name);
    if (text === null || text === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return `Invalid ${name}: not valid JSON`;
    }
    if (value !== null && (typeof value !== "object" || Array.isArray(value))) return `Invalid ${name}: must be a JSON object`;
  }
  return null;
}
