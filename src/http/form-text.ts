const UTF8 = new TextDecoder();

/**
 * A form-encoded body as text, decoded from its bytes as UTF-8 (a BOM dropped, bad bytes replaced):
 * `Request.text()` on an `application/x-www-form-urlencoded` body makes workerd warn, once per
 * request, that the body does not look like text. Pass Hono's `c.req` (its body cache lets the
 * route read the body again) or a cloned Request.
 */
export async function formText(body: { arrayBuffer(): Promise<ArrayBuffer> }): Promise<string> {
  return UTF8.decode(await body.arrayBuffer());
}
