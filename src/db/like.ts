/**
 * A LIKE pattern for "contains this text, case-insensitively", to use as
 * `lower(column) LIKE ? ESCAPE '\'`: `%`, `_` and `\` in the user's text match themselves.
 */
export const likeContaining = (s: string) => `%${s.toLowerCase().replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
