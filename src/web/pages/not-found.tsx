import type { Context } from "hono";
import { renderPage } from "../page";
import { setPageSecurityHeaders } from "../security";

/**
 * The page a person sees for an address that does not exist, in the pages' style (the API
 * families answer their own 404s in their own shapes).
 */
export async function notFoundPage(c: Context<any>): Promise<Response> {
  const res = await renderPage(
    c,
    "Page not found",
    <section class="error-page">
      <h1>Page not found</h1>
      <p>There is nothing at this address. It may have moved, or the link may be mistyped.</p>
      <p>
        <a href="/">Go to the start page</a> or <a href="/users/sign_in">sign in</a>.
      </p>
      <p class="muted"><small>Error 404</small></p>
    </section>,
    404,
  );
  // Most not-found pages pass no page door (no route matched): they carry its headers all the same.
  setPageSecurityHeaders(c, res.headers);
  return res;
}
