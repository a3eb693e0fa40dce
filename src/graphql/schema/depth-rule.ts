import { GraphQLError, Kind, type ASTVisitor, type FragmentDefinitionNode, type SelectionSetNode, type ValidationContext, type ValidationRule } from "graphql";

/**
 * GitLab limits query depth (15): connections nest (package → versions → project → packages ...),
 * and each level may fan out to 100 nodes, so depth bounds the work one request can ask for.
 */
export const MAX_QUERY_DEPTH = 15;

function depthOf(set: SelectionSetNode | undefined, fragments: Record<string, FragmentDefinitionNode>, seen: Set<string>): number {
  if (!set) return 0;
  let max = 0;
  for (const s of set.selections) {
    let d = 0;
    if (s.kind === Kind.FIELD) {
      // Introspection is exempt, as GitLab does (its nesting is fixed by the schema).
      if (s.name.value.startsWith("__")) continue;
      d = s.selectionSet ? 1 + depthOf(s.selectionSet, fragments, seen) : 1;
    } else if (s.kind === Kind.INLINE_FRAGMENT) {
      d = depthOf(s.selectionSet, fragments, seen);
    } else if (!seen.has(s.name.value)) {
      seen.add(s.name.value);
      d = depthOf(fragments[s.name.value]?.selectionSet, fragments, seen);
      seen.delete(s.name.value);
    }
    max = Math.max(max, d);
  }
  return max;
}

export function maxDepthRule(limit = MAX_QUERY_DEPTH): ValidationRule {
  return (context: ValidationContext): ASTVisitor => ({
    OperationDefinition(node) {
      const fragments: Record<string, FragmentDefinitionNode> = {};
      for (const def of context.getDocument().definitions) if (def.kind === Kind.FRAGMENT_DEFINITION) fragments[def.name.value] = def;
      const depth = depthOf(node.selectionSet, fragments, new Set());
      if (depth > limit) context.reportError(new GraphQLError(`Query has depth of ${depth}, which exceeds max depth of ${limit}`, { nodes: [node] }));
    },
  });
}
