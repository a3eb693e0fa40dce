import { sha256Base64Url } from "../crypto/hash";

/** RFC 7636 §4.1: 43 to 128 characters of A-Z a-z 0-9 - . _ ~ (spec, PKCE values). */
const VERIFIER_RE = /^[A-Za-z0-9\-._~]{43,128}$/;
/** §4.2: an S256 challenge is BASE64URL(SHA256(verifier)) without padding: 43 characters. */
const CHALLENGE_RE = /^[A-Za-z0-9_-]{43}$/;

export const isValidVerifier = (v: string) => VERIFIER_RE.test(v);
export const isValidS256Challenge = (c: string) => CHALLENGE_RE.test(c);

/** The S256 challenge of a verifier (only S256 is supported: DESIGN, PKCE). */
export const s256 = (verifier: string) => sha256Base64Url(verifier);
