import type { SchemaGate } from "./features";
import { authorizedApplicationsSdl, containerRegistrySdl, deployTokensSdl } from "./sdl-registry-and-tokens";

/**
 * The schema's type definitions at one service version, with GitLab's names. Removed names are left
 * out (a query using them fails validation, as on GitLab); deprecated ones carry @deprecated.
 */
const CONNECTION_ARGS = "after: String, before: String, first: Int, last: Int";

function connection(type: string, node = type): string {
  return `
"""The connection type for ${node}."""
type ${type}Connection {
  "Total count of collection."
  count: Int!
  edges: [${type}Edge]
  nodes: [${node}]
  pageInfo: PageInfo!
}
type ${type}Edge {
  cursor: String!
  node: ${node}
}`;
}

function runners(g: SchemaGate): string {
  const A = "graphql-runner-active";
  const hasActive = g.has(A);
  const hasPaused = g.introduced(A);
  const statusValues = [
    g.has("graphql-runner-status-filter-active-paused")
      ? `ACTIVE${g.dep("graphql-runner-status-filter-active-paused", "CiRunnerStatus.ACTIVE")}
  PAUSED${g.dep("graphql-runner-status-filter-active-paused", "CiRunnerStatus.PAUSED")}`
      : "",
    "ONLINE",
    "OFFLINE",
    g.introduced("graphql-runner-status-stale") ? "STALE" : "",
    g.has("graphql-runner-status-never-contacted")
      ? `NOT_CONNECTED${g.dep("graphql-runner-status-never-contacted", "CiRunnerStatus.NOT_CONNECTED")}`
      : "",
    g.introduced("graphql-runner-status-never-contacted") ? "NEVER_CONTACTED" : "",
  ].filter(Boolean);
  const filterArgs = (owner: string) =>
    [
      hasPaused ? "paused: Boolean" : "",
      hasActive ? `active: Boolean${g.dep(A, `${owner}(active:)`)}` : "",
      "status: CiRunnerStatus",
      "type: CiRunnerType",
      "tagList: [String!]",
      "search: String",
      "sort: CiRunnerSort",
      CONNECTION_ARGS,
    ]
      .filter(Boolean)
      .join(", ");
  return `
enum CiRunnerStatus {
  ${statusValues.join("\n  ")}
}
enum CiRunnerType { INSTANCE_TYPE GROUP_TYPE PROJECT_TYPE }
enum CiRunnerAccessLevel { NOT_PROTECTED REF_PROTECTED }
enum CiRunnerSort { CONTACTED_ASC CONTACTED_DESC CREATED_ASC CREATED_DESC }
enum CiRunnerMembershipFilter { DIRECT DESCENDANTS }

type CiRunner {
  id: CiRunnerID!
  description: String
  status: CiRunnerStatus!
  ${hasActive ? `active: Boolean!${g.dep(A, "CiRunner.active")}` : ""}
  ${hasPaused ? "paused: Boolean!" : ""}
  runnerType: CiRunnerType!
  contactedAt: Time
  createdAt: Time
  locked: Boolean
  runUntagged: Boolean!
  tagList: [String!]
  accessLevel: CiRunnerAccessLevel!
  maximumTimeout: Int
  maintenanceNote: String
  ipAddress: String
  version: String
  projectCount: Int
}
${connection("CiRunner")}

input RunnerUpdateInput {
  clientMutationId: String
  id: CiRunnerID!
  description: String
  ${hasActive ? `active: Boolean${g.dep(A, "RunnerUpdateInput.active")}` : ""}
  ${hasPaused ? "paused: Boolean" : ""}
  locked: Boolean
  runUntagged: Boolean
  tagList: [String!]
  accessLevel: CiRunnerAccessLevel
  maximumTimeout: Int
  maintenanceNote: String
}
type RunnerUpdatePayload {
  clientMutationId: String
  errors: [String!]!
  runner: CiRunner
}
`.concat(`extend type Query {\n  runner(id: CiRunnerID!): CiRunner\n  runners(${filterArgs("Query.runners")}): CiRunnerConnection\n}\n`)
    .concat(`extend type Group {\n  runners(membership: CiRunnerMembershipFilter, ${filterArgs("Group.runners")}): CiRunnerConnection\n}\n`)
    .concat(`extend type Mutation {\n  runnerUpdate(input: RunnerUpdateInput!): RunnerUpdatePayload\n}\n`);
}

function packages(g: SchemaGate): string {
  const baseFields = `
  id: PackagesPackageID!
  name: String!
  version: String
  packageType: PackageTypeEnum!
  status: PackageStatus!
  createdAt: Time!
  updatedAt: Time!
  project: Project!`;
  const versionsHavePipelines = g.has("graphql-package-details-versions-pipelines");
  return `
enum PackageTypeEnum { MAVEN NPM CONAN NUGET PYPI COMPOSER GENERIC GOLANG DEBIAN RUBYGEMS HELM TERRAFORM_MODULE RPM ML_MODEL }
enum PackageStatus { DEFAULT HIDDEN PROCESSING ERROR PENDING_DESTRUCTION }
enum PackageSort { CREATED_DESC CREATED_ASC NAME_DESC NAME_ASC VERSION_DESC VERSION_ASC TYPE_DESC TYPE_ASC }

"""A package in a list (GitLab's PackageType)."""
type Package {${baseFields}
  ${g.has("graphql-package-pipelines") ? `pipelines(${CONNECTION_ARGS}): PipelineConnection${g.dep("graphql-package-pipelines", "Package.pipelines")}` : ""}
  ${g.has("graphql-package-versions") ? `versions(${CONNECTION_ARGS}): PackageConnection${g.dep("graphql-package-versions", "Package.versions")}` : ""}
}
${connection("Package")}
${
  versionsHavePipelines
    ? ""
    : `
"""A version in PackageDetailsType.versions: no pipelines (query the version's own package for them)."""
type PackageBase {${baseFields}
}
${connection("PackageBase")}`
}

type PackageFile {
  id: ID!
  fileName: String!
  size: String!
  fileSha256: String
  createdAt: Time!
}
${connection("PackageFile")}

"""One package with its details (Query.package)."""
type PackageDetailsType {${baseFields}
  versions(${CONNECTION_ARGS}): ${versionsHavePipelines ? "PackageConnection" : "PackageBaseConnection"}
  pipelines(${CONNECTION_ARGS}): PipelineConnection
  packageFiles(${CONNECTION_ARGS}): PackageFileConnection
}

extend type Query {
  package(id: PackagesPackageID!): PackageDetailsType
}
extend type Project {
  packages(packageName: String, packageType: PackageTypeEnum, sort: PackageSort, ${CONNECTION_ARGS}): PackageConnection
}
extend type Group {
  packages(packageName: String, packageType: PackageTypeEnum, sort: PackageSort, ${CONNECTION_ARGS}): PackageConnection
}
`;
}

function pipelinesAndFindings(g: SchemaGate): string {
  const F = "graphql-security-report-finding-project-fingerprint";
  return `
enum PipelineStatusEnum { CREATED WAITING_FOR_RESOURCE PREPARING PENDING RUNNING FAILED SUCCESS CANCELED SKIPPED MANUAL SCHEDULED }
type Pipeline {
  id: ID!
  iid: String!
  sha: String!
  ref: String
  status: PipelineStatusEnum!
  source: String
  createdAt: Time!
  updatedAt: Time!
  project: Project
  securityReportFindings(reportType: [String!], severity: [String!], ${CONNECTION_ARGS}): PipelineSecurityReportFindingConnection
}
${connection("Pipeline")}

enum VulnerabilitySeverity { INFO UNKNOWN LOW MEDIUM HIGH CRITICAL }
enum VulnerabilityReportType { SAST DEPENDENCY_SCANNING CONTAINER_SCANNING DAST SECRET_DETECTION COVERAGE_FUZZING API_FUZZING CLUSTER_IMAGE_SCANNING GENERIC }
enum VulnerabilityState { DETECTED CONFIRMED RESOLVED DISMISSED }
type PipelineSecurityReportFinding {
  uuid: String
  projectFingerprint: String${g.dep(F, "PipelineSecurityReportFinding.projectFingerprint")}
  title: String
  description: String
  solution: String
  severity: VulnerabilitySeverity
  reportType: VulnerabilityReportType
  state: VulnerabilityState
  project: Project
}
${connection("PipelineSecurityReportFinding")}

extend type Project {
  pipeline(iid: ID, sha: String): Pipeline
  pipelines(${CONNECTION_ARGS}): PipelineConnection
}
`;
}

function mergeRequestsAndIssues(g: SchemaGate): string {
  const W = "graphql-merge-request-default-merge-commit-message-with-description";
  return `
enum MergeRequestState { opened closed locked all merged }
type MergeRequest {
  id: ID!
  iid: String!
  title: String!
  description: String
  state: MergeRequestState!
  sourceBranch: String!
  targetBranch: String!
  author: UserCore
  mergeUser: UserCore
  mergedAt: Time
  createdAt: Time!
  updatedAt: Time!
  webUrl: String
  project: Project!
  defaultMergeCommitMessage: String
  ${g.has(W) ? `defaultMergeCommitMessageWithDescription: String${g.dep(W, "MergeRequest.defaultMergeCommitMessageWithDescription")}` : ""}
}
${connection("MergeRequest")}

enum IssueState { opened closed locked all }
type Issue {
  id: ID!
  iid: String!
  title: String!
  description: String
  state: IssueState!
  author: UserCore
  createdAt: Time!
  updatedAt: Time!
  webUrl: String
}
${connection("Issue")}

input CreateIssueInput {
  clientMutationId: String
  projectPath: ID!
  title: String!
  description: String
}
type CreateIssuePayload {
  clientMutationId: String
  errors: [String!]!
  issue: Issue
}

extend type Project {
  mergeRequest(iid: String!): MergeRequest
  mergeRequests(state: MergeRequestState, ${CONNECTION_ARGS}): MergeRequestConnection
  issue(iid: String): Issue
  issues(state: IssueState, ${CONNECTION_ARGS}): IssueConnection
}
extend type Query {
  issue(id: IssueID!): Issue
}
extend type Mutation {
  createIssue(input: CreateIssueInput!): CreateIssuePayload
}
`;
}

function usageTrends(g: SchemaGate): string {
  const I = "graphql-instance-statistics-measurements";
  const args = `identifier: MeasurementIdentifier!, recordedAfter: Time, recordedBefore: Time, ${CONNECTION_ARGS}`;
  return `
enum MeasurementIdentifier { PROJECTS USERS ISSUES MERGE_REQUESTS GROUPS PIPELINES PIPELINES_SUCCEEDED PIPELINES_FAILED PIPELINES_CANCELED PIPELINES_SKIPPED }
type UsageTrendsMeasurement {
  count: Int!
  identifier: MeasurementIdentifier
  recordedAt: Time
}
${connection("UsageTrendsMeasurement")}
extend type Query {
  usageTrendsMeasurements(${args}): UsageTrendsMeasurementConnection
  ${g.has(I) ? `instanceStatisticsMeasurements(${args}): UsageTrendsMeasurementConnection${g.dep(I, "Query.instanceStatisticsMeasurements")}` : ""}
}
`;
}

function apiFuzzing(g: SchemaGate): string {
  const M = "graphql-api-fuzzing-ci-configuration-create";
  if (!g.has(M)) return "";
  return `
enum ApiFuzzingScanMode { HAR OPENAPI POSTMAN }
input ApiFuzzingCiConfigurationCreateInput {
  clientMutationId: String
  projectPath: ID!
  apiSpecificationFile: String!
  authPassword: String
  authUsername: String
  scanMode: ApiFuzzingScanMode!
  scanProfile: String
  target: String!
}
type ApiFuzzingCiConfigurationCreatePayload {
  clientMutationId: String
  configurationYaml: String
  errors: [String!]!
  gitlabCiYamlEditPath: String
}
extend type Mutation {
  apiFuzzingCiConfigurationCreate(input: ApiFuzzingCiConfigurationCreateInput!): ApiFuzzingCiConfigurationCreatePayload${g.dep(M, "Mutation.apiFuzzingCiConfigurationCreate")}
}
`;
}

export function typeDefsFor(g: SchemaGate): string {
  return `
scalar Time
scalar CiRunnerID
scalar PackagesPackageID
scalar IssueID
scalar MergeRequestID
scalar CiPipelineID
scalar ContainerRepositoryID
scalar DeployTokenID
scalar AuthnOauthApplicationID
scalar BigInt

type PageInfo {
  endCursor: String
  hasNextPage: Boolean!
  hasPreviousPage: Boolean!
  startCursor: String
}

type UserCore {
  id: ID!
  username: String!
  name: String!
  webUrl: String!
}

"""The signed-in user (Query.currentUser): UserCore's fields and what only they may see."""
type CurrentUser {
  id: ID!
  username: String!
  name: String!
  webUrl: String!
}

type Project {
  id: ID!
  name: String!
  path: String!
  fullPath: ID!
  description: String
  visibility: String
  webUrl: String
  createdAt: Time
}

type Group {
  id: ID!
  name: String!
  path: String!
  fullPath: ID!
  description: String
  visibility: String
  webUrl: String
}

type Query {
  "Testing endpoint to validate the API with."
  echo(text: String!): String!
  currentUser: CurrentUser
  project(fullPath: ID!): Project
  group(fullPath: ID!): Group
}

type Mutation
${runners(g)}
${packages(g)}
${pipelinesAndFindings(g)}
${mergeRequestsAndIssues(g)}
${usageTrends(g)}
${apiFuzzing(g)}
${containerRegistrySdl()}
${deployTokensSdl()}
${authorizedApplicationsSdl()}
`;
}
