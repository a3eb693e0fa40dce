import { GraphQLError, GraphQLScalarType, Kind } from "graphql";

/**
 * GitLab's global IDs: gid://gitlab/<Model>/<id>. Each specific ID scalar (CiRunnerID, IssueID, ...)
 * accepts only ids of its model. Resolvers parse again with parseGid, because below 15.0 a variable
 * declared as plain ID reaches a specific-ID argument without passing through the scalar.
 */
export const GID_MODELS = {
  CiRunnerID: "Ci::Runner",
  PackagesPackageID: "Packages::Package",
  IssueID: "Issue",
  MergeRequestID: "MergeRequest",
  CiPipelineID: "Ci::Pipeline",
  ContainerRepositoryID: "ContainerRepository",
  DeployTokenID: "DeployToken",
  AuthnOauthApplicationID: "Authn::OauthApplication",
} as const;
export type GidScalar = keyof typeof GID_MODELS;

export function toGid(model: string, id: number): string {
  return `gid://gitlab/${model}/${id}`;
}

/** The numeric id of a global id of the given model; a GraphQLError (never a 500) otherwise. */
export function parseGid(value: unknown, model: string, typeName = "ID"): number {
  if (typeof value !== "string") throw new GraphQLError(`${JSON.stringify(value)} is not a valid ${typeName}`);
  const m = /^gid:\/\/gitlab\/([A-Za-z:]+)\/(\d+)$/.exec(value);
  if (!m) throw new GraphQLError(`"${value}" is not a valid Global ID`);
  if (m[1] !== model) throw new GraphQLError(`"${value}" does not represent an instance of ${model}`);
  const id = Number(m[2]);
  if (!Number.isSafeInteger(id)) throw new GraphQLError(`"${value}" is not a valid Global ID`);
  return id;
}

function gidScalar(name: GidScalar): GraphQLScalarType {
  const model = GID_MODELS[name];
  return new GraphQLScalarType({
    name,
    description: `A \`${name}\` is a global ID. It is encoded as a string, for example "gid://gitlab/${model}/1".`,
    serialize: (v) => (typeof v === "number" ? toGid(model, v) : String(v)),
    parseValue: (v) => (parseGid(v, model, name), v),
    parseLiteral: (ast) => {
      if (ast.kind !== Kind.STRING) throw new GraphQLError(`${name} must be a string`);
      parseGid(ast.value, model, name);
      return ast.value;
    },
  });
}

/** ISO 8601 date-time, as GitLab's Time scalar. */
export const TimeScalar = new GraphQLScalarType({
  name: "Time",
  description: "Time represented in ISO 8601, for example \"2021-03-09T14:58:50+00:00\".",
  serialize: (v) => (typeof v === "number" ? new Date(v).toISOString() : v instanceof Date ? v.toISOString() : String(v)),
  parseValue: (v) => parseTime(v),
  parseLiteral: (ast) => {
    if (ast.kind !== Kind.STRING) throw new GraphQLError("Time must be an ISO 8601 string");
    return parseTime(ast.value);
  },
});

function parseTime(v: unknown): number {
  const t = typeof v === "string" ? Date.parse(v) : Number.NaN;
  if (Number.isNaN(t)) throw new GraphQLError(`${JSON.stringify(v)} is not an ISO 8601 time`);
  return t;
}

/** GitLab's BigInt: integers beyond 2^53 are sent as strings (sizes in bytes). */
export const BigIntScalar = new GraphQLScalarType({
  name: "BigInt",
  description: "Represents non-fractional signed whole numeric values. Since the value may exceed the size of a 32-bit integer, it's encoded as a string.",
  serialize: (v) => String(v),
  parseValue: (v) => parseBigInt(v),
  parseLiteral: (ast) => parseBigInt(ast.kind === Kind.STRING || ast.kind === Kind.INT ? ast.value : undefined),
});

function parseBigInt(v: unknown): number {
  const n = typeof v === "string" && /^-?\d+$/.test(v) ? Number(v) : typeof v === "number" && Number.isSafeInteger(v) ? v : Number.NaN;
  if (!Number.isSafeInteger(n)) throw new GraphQLError(`${JSON.stringify(v)} is not a valid BigInt`);
  return n;
}

export const SCALAR_RESOLVERS = {
  Time: TimeScalar,
  CiRunnerID: gidScalar("CiRunnerID"),
  PackagesPackageID: gidScalar("PackagesPackageID"),
  IssueID: gidScalar("IssueID"),
  MergeRequestID: gidScalar("MergeRequestID"),
  CiPipelineID: gidScalar("CiPipelineID"),
  ContainerRepositoryID: gidScalar("ContainerRepositoryID"),
  DeployTokenID: gidScalar("DeployTokenID"),
  AuthnOauthApplicationID: gidScalar("AuthnOauthApplicationID"),
  BigInt: BigIntScalar,
};

/** Scalars that the schedule's ID-type rule concerns: specific ID types, where plain ID variables were accepted below 15.0. */
export const SPECIFIC_ID_SCALARS: ReadonlySet<string> = new Set(Object.keys(GID_MODELS));
