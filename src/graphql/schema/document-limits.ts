import { GraphQLError, Lexer, Source, TokenKind, parse, type DocumentNode, type ParseOptions } from "graphql";

/**
 * Limits checked before a document is parsed, so an oversized or pathologically nested document
 * costs a linear scan and nothing more (issue 8 item 5, issue 12 "broken GraphQL document").
 * GitLab refuses queries over 10,000 characters ("Query too large"); the token and nesting limits
 * bound the parser's work and its recursion (a few thousand nested braces overflow the stack).
 */
export const MAX_QUERY_SIZE = 10_000;
export const MAX_QUERY_TOKENS = 5_000;
export const MAX_QUERY_NESTING = 64;

const OPENERS = new Set<string>([TokenKind.BRACE_L, TokenKind.PAREN_L, TokenKind.BRACKET_L]);
const CLOSERS = new Set<string>([TokenKind.BRACE_R, TokenKind.PAREN_R, TokenKind.BRACKET_R]);

/** Refuses a document over the limits with a GraphQLError (a request error: 400). */
export function checkDocumentLimits(text: string): void {
  if (text.length > MAX_QUERY_SIZE) throw new GraphQLError(`Query too large: ${text.length} characters, the limit is ${MAX_QUERY_SIZE}`);
  const lexer = new Lexer(new Source(text));
  let tokens = 0;
  let nesting = 0;
  try {
    for (let t = lexer.advance(); t.kind !== TokenKind.EOF; t = lexer.advance()) {
      if (++tokens > MAX_QUERY_TOKENS) throw new GraphQLError(`Query has more than ${MAX_QUERY_TOKENS} tokens`);
      if (OPENERS.has(t.kind) && ++nesting > MAX_QUERY_NESTING) throw new GraphQLError(`Query is nested more than ${MAX_QUERY_NESTING} levels deep`);
      if (CLOSERS.has(t.kind)) nesting--;
    }
  } catch (e) {
    // A lexical error is a syntax error: the parser below reports it in its own words.
    if (e instanceof GraphQLError && !e.message.startsWith("Syntax Error")) throw e;
  }
}

/** graphql-js's parse behind the limits. */
export function limitedParse(source: string | Source, options?: ParseOptions): DocumentNode {
  checkDocumentLimits(typeof source === "string" ? source : source.body);
  return parse(source, { ...options, maxTokens: MAX_QUERY_TOKENS });
}
