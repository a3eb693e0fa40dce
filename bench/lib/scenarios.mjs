// autocannon scenarios shared by the bench scripts.
import { ChainPool } from "./measure.mjs";

/** One Durable Object write per request, one object per key (like real families), `keys` of them. */
export function keyedDoWrites(base, keys) {
  const pool = new ChainPool(Array.from({ length: keys }, (_, i) => String(i)));
  return {
    url: base,
    requests: [
      {
        method: "POST",
        setupRequest(req, ctx) {
          ctx.key = pool.take();
          return { ...req, path: `/-/bench/do-write?k=${ctx.key}` };
        },
        onResponse(_s, _b, ctx) {
          pool.give(ctx.key);
        },
      },
    ],
    afterRun: () => pool.restore(),
  };
}

/**
 * Chains of refresh rotations against a token endpoint (`url`): each request spends one refresh
 * token of the pool and puts its successor back; `fields` and `headers` authenticate the client.
 */
export function refreshChains(url, refreshTokens, fields = {}, headers = {}) {
  const pool = new ChainPool(refreshTokens);
  return {
    url,
    requests: [
      {
        method: "POST",
        setupRequest(req, ctx) {
          ctx.token = pool.take();
          return {
            ...req,
            headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
            body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: ctx.token, ...fields }).toString(),
          };
        },
        onResponse(status, body, ctx) {
          pool.give(ctx.token, status === 200 ? JSON.parse(body).refresh_token : ctx.token);
        },
      },
    ],
    afterRun: () => pool.restore(),
  };
}
