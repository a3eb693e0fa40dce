import { stringify } from "yaml";
import { paginate, type ConnectionArgs } from "../connection";
import { isAdmin, notAvailable, requireWrite, visibleProject, type GqlContext } from "../context";
import { listMeasurements, recordTodayIfMissing, type Identifier, type MeasurementRow } from "../../db/usage-trends";

/** usageTrendsMeasurements (and its removed old name) and apiFuzzingCiConfigurationCreate. */
interface MeasurementArgs extends ConnectionArgs {
  identifier: string;
  recordedAfter?: number | null;
  recordedBefore?: number | null;
}

async function measurements(args: MeasurementArgs, ctx: GqlContext) {
  // Instance statistics are an administrator's view (GitLab's read_usage_trends_measurement).
  if (!isAdmin(ctx)) throw notAvailable();
  await recordTodayIfMissing(ctx.db, ctx.now);
  const identifier = args.identifier.toLowerCase() as Identifier;
  return paginate(args, (w) =>
    listMeasurements(ctx.db, identifier, { after: args.recordedAfter ?? undefined, before: args.recordedBefore ?? undefined }, w),
  );
}

/** GitLab's scan-mode variables of the API fuzzing template. */
const SCAN_MODE_VARIABLE = { HAR: "FUZZAPI_HAR", OPENAPI: "FUZZAPI_OPENAPI", POSTMAN: "FUZZAPI_POSTMAN_COLLECTION" } as const;

interface FuzzingInput {
  clientMutationId?: string | null;
  projectPath: string;
  apiSpecificationFile: string;
  authPassword?: string | null;
  authUsername?: string | null;
  scanMode: keyof typeof SCAN_MODE_VARIABLE;
  scanProfile?: string | null;
  target: string;
}

export const instanceResolvers = {
  Query: {
    usageTrendsMeasurements: (_: unknown, args: MeasurementArgs, ctx: GqlContext) => measurements(args, ctx),
    instanceStatisticsMeasurements: (_: unknown, args: MeasurementArgs, ctx: GqlContext) => {
      ctx.deprecations.add("graphql-instance-statistics-measurements");
      return measurements(args, ctx);
    },
  },
  UsageTrendsMeasurement: {
    identifier: (m: MeasurementRow) => m.identifier.toUpperCase(),
  },
  Mutation: {
    apiFuzzingCiConfigurationCreate: async (_: unknown, { input }: { input: FuzzingInput }, ctx: GqlContext) => {
      requireWrite(ctx);
      ctx.deprecations.add("graphql-api-fuzzing-ci-configuration-create");
      // Generating pipeline configuration is a developer's action, as running pipelines is.
      const project = await visibleProject(ctx, input.projectPath, "create_pipeline");
      if (!project) throw notAvailable();
      // Credentials are never written into the file: the fields name CI/CD variables that hold them.
      const variables: Record<string, string> = {};
      if (input.authPassword) variables.FUZZAPI_HTTP_PASSWORD = `$${input.authPassword}`;
      if (input.authUsername) variables.FUZZAPI_HTTP_USERNAME = `$${input.authUsername}`;
      if (input.scanProfile) variables.FUZZAPI_PROFILE = input.scanProfile;
      variables.FUZZAPI_TARGET_URL = input.target;
      variables[SCAN_MODE_VARIABLE[input.scanMode]] = input.apiSpecificationFile;
      const config = { stages: ["fuzz"], include: [{ template: "API-Fuzzing.gitlab-ci.yml" }], variables };
      return {
        configurationYaml: stringify(config),
        gitlabCiYamlEditPath: `/${project.pathWithNamespace}/-/ci/editor`,
        errors: [],
        clientMutationId: input.clientMutationId ?? null,
      };
    },
  },
};
