import {
  GraphQLError,
  isListType,
  isNonNullType,
  isTypeSubTypeOf,
  Kind,
  specifiedRules,
  typeFromAST,
  VariablesInAllowedPositionRule,
  type ASTVisitor,
  type GraphQLSchema,
  type GraphQLType,
  type ValidationContext,
  type ValidationRule,
  type ValueNode,
  type VariableDefinitionNode,
} from "graphql";
import { SPECIFIC_ID_SCALARS } from "./global-id";

/**
 * The schedule's ID-type row: below 15.0 a variable declared as `ID` may be used where a specific
 * ID type is declared (Query.issue(id: IssueID!) with `$id: ID!`), as GitLab's GraphQL did; from
 * 15.0 graphql-js's own VariablesInAllowedPositionRule applies unchanged and the query fails
 * validation. This is that rule with the one extra allowance.
 */
function legacyIdCompatible(varType: GraphQLType, locationType: GraphQLType): boolean {
  if (isNonNullType(locationType)) {
    return isNonNullType(varType) && legacyIdCompatible(varType.ofType, locationType.ofType);
  }
  if (isNonNullType(varType)) return legacyIdCompatible(varType.ofType, locationType);
  if (isListType(locationType)) return isListType(varType) && legacyIdCompatible(varType.ofType, locationType.ofType);
  if (isListType(varType)) return false;
  return varType.name === "ID" && SPECIFIC_ID_SCALARS.has(locationType.name);
}

function allowedVariableUsage(
  schema: GraphQLSchema,
  varType: GraphQLType,
  varDefaultValue: ValueNode | undefined,
  locationType: GraphQLType,
  locationDefaultValue: unknown,
  onLegacy: () => void,
): boolean {
  const subtype = (a: GraphQLType, b: GraphQLType) => {
    if (isTypeSubTypeOf(schema, a, b)) return true;
    if (legacyIdCompatible(a, b)) {
      onLegacy();
      return true;
    }
    return false;
  };
  if (isNonNullType(locationType) && !isNonNullType(varType)) {
    const hasNonNullVariableDefault = varDefaultValue != null && varDefaultValue.kind !== Kind.NULL;
    if (!hasNonNullVariableDefault && locationDefaultValue === undefined) return false;
    return subtype(varType, locationType.ofType);
  }
  return subtype(varType, locationType);
}

export function legacyIdVariablesRule(onLegacy: () => void): ValidationRule {
  return (context: ValidationContext): ASTVisitor => {
    let varDefs: Record<string, VariableDefinitionNode> = Object.create(null);
    return {
      OperationDefinition: {
        enter() {
          varDefs = Object.create(null);
        },
        leave(operation) {
          for (const { node, type, defaultValue } of context.getRecursiveVariableUsages(operation)) {
            const name = node.name.value;
            const def = varDefs[name];
            if (!def || !type) continue;
            const schema = context.getSchema();
            const varType = typeFromAST(schema, def.type);
            if (varType && !allowedVariableUsage(schema, varType, def.defaultValue, type, defaultValue, onLegacy)) {
              context.reportError(
                new GraphQLError(`Variable "$${name}" of type "${String(varType)}" used in position expecting type "${String(type)}".`, {
                  nodes: [def, node],
                }),
              );
            }
          }
        },
      },
      VariableDefinition(node) {
        varDefs[node.variable.name.value] = node;
      },
    };
  };
}

/** graphql-js's specified rules with VariablesInAllowedPositionRule replaced by the legacy one. */
export function legacyRules(rules: readonly ValidationRule[] | undefined, onLegacy: () => void): ValidationRule[] {
  return (rules ?? specifiedRules).map((r) => (r === VariablesInAllowedPositionRule ? legacyIdVariablesRule(onLegacy) : r));
}
