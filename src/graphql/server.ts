import { TypeInfo, getNamedType, specifiedRules, validate, visit, visitWithTypeInfo, type DocumentNode, type ValidationRule } from "graphql";
import { createYoga, type Plugin, type YogaServerInstance } from "graphql-yoga";
import type { GqlContext } from "./context";
import { buildVersionedSchema, type VersionedSchema } from "./schema/build";
import { MAX_COMPLEXITY_ANONYMOUS, MAX_COMPLEXITY_AUTHENTICATED, maxComplexityRule } from "./schema/complexity-rule";
import { maxDepthRule } from "./schema/depth-rule";
import { limitedParse } from "./schema/document-limits";
import { legacyRules } from "./schema/legacy-id-rule";

/**
 * One graphql-yoga server per service version (the schema differs by version; built on first use
 * and kept for the isolate's life).
 */
type ServerContext = GqlContext;

/** Catalogue ids of deprecated schema coordinates a document selects (for Deprecation headers). */
function deprecatedUses(doc: DocumentNode, vs: VersionedSchema): string[] {
  const coords = vs.gate.coordinates;
  if (coords.size === 0) return [];
  const found = new Set<string>();
  const typeInfo = new TypeInfo(vs.schema);
  visit(
    doc,
    visitWithTypeInfo(typeInfo, {
      Field(node) {
        const parent = typeInfo.getParentType();
        if (parent) {
          const id = coords.get(`${parent.name}.${node.name.value}`);
          if (id) found.add(id);
        }
      },
      Argument(node) {
        const parent = typeInfo.getParentType();
        const field = typeInfo.getFieldDef();
        if (parent && field) {
          const id = coords.get(`${parent.name}.${field.name}(${node.name.value}:)`);
          if (id) found.add(id);
        }
      },
      ObjectField(node) {
        const parent = typeInfo.getParentInputType();
        if (parent) {
          const id = coords.get(`${getNamedType(parent).name}.${node.name.value}`);
          if (id) found.add(id);
        }
      },
      EnumValue(node) {
        const type = typeInfo.getInputType();
        if (type) {
          const id = coords.get(`${getNamedType(type).name}.${node.value}`);
          if (id) found.add(id);
        }
      },
    }),
  );
  return [...found];
}

function versionPlugin(vs: VersionedSchema): Plugin<ServerContext> {
  // The schedule's ID-type row: the legacy validation rule is used while the entry is not removed.
  const legacyIds = vs.gate.has("graphql-id-argument-type");
  return {
    onParse({ setParseFn }) {
      setParseFn(limitedParse);
    },
    onValidate({ context, setValidationFn }) {
      // The whole rule list is built here: graphql-js's specified rules (with the legacy variant of
      // one of them below 15.0), any rule another plugin added, and the depth and complexity limits.
      const complexity = maxComplexityRule(context.principal ? MAX_COMPLEXITY_AUTHENTICATED : MAX_COMPLEXITY_ANONYMOUS);
      setValidationFn((schema, doc, rules, options, typeInfo) => {
        const extra = ((rules ?? []) as readonly ValidationRule[]).filter((r) => !specifiedRules.includes(r));
        const standard = legacyIds ? legacyRules(specifiedRules, () => context.deprecations?.add("graphql-id-argument-type")) : specifiedRules;
        return validate(schema, doc, [...standard, ...extra, maxDepthRule(), complexity], options, typeInfo);
      });
    },
    onExecute({ args }) {
      const ctx = args.contextValue as ServerContext;
      for (const id of deprecatedUses(args.document, vs)) ctx.deprecations.add(id);
    },
  };
}

export interface VersionServer {
  yoga: YogaServerInstance<ServerContext, object>;
  gate: VersionedSchema["gate"];
}

const servers = new Map<string, VersionServer>();

export function serverFor(version: string): VersionServer {
  let server = servers.get(version);
  if (!server) {
    const vs = buildVersionedSchema(version);
    const yoga = createYoga<ServerContext>({
      schema: vs.schema as never,
      graphqlEndpoint: "/api/graphql",
      graphiql: false,
      landingPage: false,
      // CORS is the app's one policy (src/app.ts, no credentials); yoga's default would allow them.
      cors: false,
      // Unexpected errors become "Unexpected error." without a stack; GraphQLErrors pass as they are.
      maskedErrors: { isDev: false },
      // Validation depends on the request (legacy-ID use is recorded per request).
      parserAndValidationCache: false,
      logging: "warn",
      plugins: [versionPlugin(vs)],
    });
    server = { yoga, gate: vs.gate };
    servers.set(version, server);
  }
  return server;
}
