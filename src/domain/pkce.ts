import { sha256Base64Url } from "../crypto/hash";

/**
 * A code_verifier as GitLab (Doorkeeper) takes it: hashed and compared, whatever its characters.
 * RFC 7636 §4.1 asks for 43 to 128 of A-Z a-z 0-9 - . _ ~, but clients in use send standard
 * base64 (`+`, `/`, `=`: git-credential-oauth 0.4.2), which GitLab accepts; refusing them broke
 * those clients and protected nothing, since the hash still has to match. The length bound stays
 * (DESIGN, Agents), and the characters are printable ASCII, so the verifier hashes the same way in
 * every client (docs/oauth.md, Codes).
 */
const VERIFIER_RE = /^[\x21-\x7e]{43,128}$/;
/** §4.2: an S256 challenge is BASE64URL(SHA256(verifier)) without padding: 43 characters. */
const CHALLENGE_RE = /^[A-Za-z0-9_-]{43}$/;

export const isValidVerifier = (v: string) => VERIFIER_RE.test(v);
export const isValidS256Challenge = (c: string) => CHALLENGE_RE.test(c);

/** The S256 challenge of a verifier (only S256 is supported: DESIGN, PKCE). */
export const s256 = (verifier: string) => sha256Base64Url(verifier);
