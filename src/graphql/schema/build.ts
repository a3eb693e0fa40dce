import type { GraphQLSchema } from "graphql";
import { createSchema } from "graphql-yoga";
import { authorizedApplicationResolvers } from "../resolvers/authorized-applications";
import { containerRegistryResolvers } from "../resolvers/container-registry";
import { deployTokenResolvers } from "../resolvers/deploy-tokens";
import { instanceResolvers } from "../resolvers/instance";
import { mergeRequestResolvers } from "../resolvers/merge-requests";
import { packageResolvers } from "../resolvers/packages";
import { pipelineResolvers } from "../resolvers/pipelines";
import { projectResolvers } from "../resolvers/projects";
import { runnerResolvers } from "../resolvers/runners";
import { schemaGate, type SchemaGate } from "./features";
import { SCALAR_RESOLVERS } from "./global-id";
import { typeDefsFor } from "./sdl";

type ResolverMap = Record<string, Record<string, unknown> | unknown>;

/** Joins the per-area resolver maps type by type (Query, Mutation, Project and Group are shared). */
function mergeResolvers(...maps: ResolverMap[]): ResolverMap {
  const out: Record<string, Record<string, unknown>> = {};
  for (const map of maps) {
    for (const [type, fields] of Object.entries(map)) {
      out[type] = { ...(out[type] ?? {}), ...(fields as Record<string, unknown>) };
    }
  }
  return out;
}

const RESOLVERS = mergeResolvers(
  projectResolvers,
  runnerResolvers,
  packageResolvers,
  pipelineResolvers,
  mergeRequestResolvers,
  instanceResolvers,
  containerRegistryResolvers,
  deployTokenResolvers,
  authorizedApplicationResolvers,
);

export interface VersionedSchema {
  schema: GraphQLSchema;
  gate: SchemaGate;
}

/**
 * The executable schema of one service version. Resolvers of names the version removed are simply
 * not attached (the schema has no such field, so no query reaches them).
 */
export function buildVersionedSchema(version: string): VersionedSchema {
  const gate = schemaGate(version);
  const schema = createSchema({
    typeDefs: typeDefsFor(gate),
    resolvers: [SCALAR_RESOLVERS, RESOLVERS] as never,
    resolverValidationOptions: { requireResolversToMatchSchema: "ignore" },
  });
  return { schema, gate };
}
