/**
 * The one rule for names a person types that another person reads (application and dynamic client
 * names, personal access token and deploy token names, user, group and project names): invisible
 * format characters are stripped at the input layer (docs/security.md "Names shown to others").
 *
 * Stripped: Unicode category Cf (bidi embeddings, overrides and isolates U+202A-202E and
 * U+2066-2069, the marks U+200E/U+200F/U+061C, zero-width space U+200B, word joiner and invisible
 * operators U+2060-2064, U+FEFF, soft hyphen, tag characters, interlinear annotations, ...) and the
 * control characters (Cc: line breaks, tabs, NUL, C1). A U+202E in an application's name reversed
 * the rest of the consent sentence, the "redirected to" origin included.
 * Kept: U+200C ZERO WIDTH NON-JOINER and U+200D ZERO WIDTH JOINER, which Persian, the Indic scripts
 * and emoji sequences need inside ordinary words and which reorder nothing.
 * Stripping rather than refusing, as GitLab keeps a name usable: the name someone pasted with a
 * stray mark still saves, without the mark. Fields with a grammar of their own (usernames, paths,
 * deploy-token usernames) refuse instead, through that grammar.
 */
const INVISIBLE = /(?![\u200C\u200D])[\p{Cf}\p{Cc}]/gu;
/** Line breaks and tabs separate words: they become a space rather than joining the words. */
const BREAKS = /[\t\n\v\f\r\u0085\u2028\u2029]+/g;

export function cleanDisplayName(value: string): string {
  return value.replace(BREAKS, " ").replace(INVISIBLE, "").trim();
}
