// DPoP proofs (RFC 9449 §4) for the bench scripts, signed with node:crypto (ES256) so that a pool
// of thousands is signed in a fraction of a second, outside the timing.
import { createHash, generateKeyPairSync, randomUUID, sign } from "node:crypto";

const b64url = (x) => Buffer.from(x).toString("base64url");

/** A fresh P-256 key; `proof(htm, htu, extra)` signs one proof with its public JWK in the header. */
export function dpopKey() {
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const { kty, crv, x, y } = publicKey.export({ format: "jwk" });
  const header = b64url(JSON.stringify({ typ: "dpop+jwt", alg: "ES256", jwk: { kty, crv, x, y } }));
  function proof(htm, htu, extra = {}) {
    const payload = b64url(JSON.stringify({ jti: randomUUID(), htm, htu, iat: Math.floor(Date.now() / 1000), ...extra }));
    const input = `${header}.${payload}`;
    return `${input}.${b64url(sign("sha256", Buffer.from(input), { key: privateKey, dsaEncoding: "ieee-p1363" }))}`;
  }
  return { proof };
}

/** RFC 9449 §4.2 `ath`: the access token's SHA-256, base64url. */
export const ath = (token) => createHash("sha256").update(token).digest("base64url");

/**
 * An autocannon scenario of GETs with a DPoP-bound token, each with its own proof: a pool signed
 * before every slice (`beforeRun`, sized for `perSlice` requests) and topped up synchronously if
 * a slice outruns it, so a proof is never reused (a replayed jti is refused).
 */
export function dpopGets(url, token, key, nonce, perSlice) {
  const claims = { nonce, ath: ath(token) };
  let pool = [];
  return {
    url,
    beforeRun() {
      pool = Array.from({ length: perSlice }, () => key.proof("GET", url, claims));
    },
    requests: [
      {
        method: "GET",
        setupRequest(req) {
          return { ...req, headers: { Authorization: `DPoP ${token}`, DPoP: pool.pop() ?? key.proof("GET", url, claims) } };
        },
      },
    ],
  };
}
