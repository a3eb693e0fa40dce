import type { Context } from "hono";

const UTF8 = new TextDecoder();

/**
 * A form-encoded body as text, decoded from its bytes as UTF-8 (a BOM dropped, bad bytes replaced):
 * `Request.text()` on an `application/x-www-form-urlencoded` body makes workerd warn, once per
 * request, that the body does not look like text. Read through Hono's body cache, so the route
 * may read the body again.
 */
export async function formText(c: Context): Promise<string> {
  return UTF8.decode(await c.req.arrayBuffer());
}
