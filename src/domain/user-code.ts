/**
 * Device-flow user codes (RFC 8628 §6.1): eight letters from twenty consonants (no vowels, so no
 * words; no look-alikes such as 0/O or 1/I), shown as XXXX-XXXX. 20^8 is about 2^34.6: with
 * entry throttled and codes living five minutes, guessing one is hopeless.
 */
export const USER_CODE_ALPHABET = "BCDFGHJKLMNPQRSTVWXZ";
const LENGTH = 8;

export function newUserCode(): string {
  let out = "";
  // 256 is not a multiple of 20: draw again above 239 so every letter is equally likely.
  while (out.length < LENGTH) {
    for (const b of crypto.getRandomValues(new Uint8Array(LENGTH * 2))) {
      if (b < 240 && out.length < LENGTH) out += USER_CODE_ALPHABET[b % 20];
    }
  }
  return out;
}

export function displayUserCode(code: string): string {
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}

/** What a person typed, as stored: dashes, spaces and case do not matter (RFC 8628 §6.1). */
export function normalizeUserCode(typed: string): string | null {
  const letters = typed.toUpperCase().replace(/[\s-]/g, "");
  if (letters.length !== LENGTH) return null;
  for (const ch of letters) if (!USER_CODE_ALPHABET.includes(ch)) return null;
  return letters;
}
