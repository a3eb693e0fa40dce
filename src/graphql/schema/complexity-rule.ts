import { GraphQLError, type ASTVisitor, type ValidationContext, type ValidationRule } from "graphql";
import { measureSelections } from "./fragment-walk";

/**
 * GitLab's query complexity limits: 200 points for anonymous requests, 250 for authenticated ones.
 * Every selected field costs one point, counted at each place it is selected (a fragment spread
 * twice costs twice: that is what execution will do). The schema and type introspection roots
 * (`__schema`, `__type`) are exempt, so clients and tools can introspect; `__typename` costs a
 * point like any field, which is what refuses documents built only of repeated fragment spreads.
 */
export const MAX_COMPLEXITY_ANONYMOUS = 200;
export const MAX_COMPLEXITY_AUTHENTICATED = 250;

const INTROSPECTION_ROOTS = new Set(["__schema", "__type"]);

export function maxComplexityRule(limit: number): ValidationRule {
  return (context: ValidationContext): ASTVisitor => {
    const complexityOf = measureSelections(context.getDocument(), {
      field: (name, inner) => (INTROSPECTION_ROOTS.has(name) ? 0 : 1 + inner()),
      combine: (a, b) => a + b,
    });
    return {
      OperationDefinition(node) {
        const complexity = complexityOf(node.selectionSet);
        if (complexity > limit) {
          context.reportError(new GraphQLError(`Query has complexity of ${complexity}, which exceeds max complexity of ${limit}`, { nodes: [node] }));
        }
      },
    };
  };
}
