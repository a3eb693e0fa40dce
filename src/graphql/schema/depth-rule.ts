import { GraphQLError, type ASTVisitor, type ValidationContext, type ValidationRule } from "graphql";
import { measureSelections } from "./fragment-walk";

/**
 * GitLab limits query depth (15): connections nest (package → versions → project → packages ...),
 * and each level may fan out to 100 nodes, so depth bounds the work one request can ask for.
 */
export const MAX_QUERY_DEPTH = 15;

export function maxDepthRule(limit = MAX_QUERY_DEPTH): ValidationRule {
  return (context: ValidationContext): ASTVisitor => {
    const depthOf = measureSelections(context.getDocument(), {
      // Introspection is exempt, as GitLab does (its nesting is fixed by the schema).
      field: (name, inner) => (name.startsWith("__") ? 0 : 1 + inner()),
      combine: Math.max,
    });
    return {
      OperationDefinition(node) {
        const depth = depthOf(node.selectionSet);
        if (depth > limit) context.reportError(new GraphQLError(`Query has depth of ${depth}, which exceeds max depth of ${limit}`, { nodes: [node] }));
      },
    };
  };
}
