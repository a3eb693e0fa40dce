/**
 * GraphQL for what REST gained: container repositories with their tags, size and the two delete
 * mutations (GitLab's names: ContainerRepository, ContainerRepositoryDetails, Query.containerRepository,
 * destroyContainerRepository, destroyContainerRepositoryTags), deploy tokens, and the current
 * user's authorized applications. None of these change with the service version.
 */
const CONNECTION_ARGS = "after: String, before: String, first: Int, last: Int";

function connection(type: string): string {
  return `
"""The connection type for ${type}."""
type ${type}Connection {
  "Total count of collection."
  count: Int!
  edges: [${type}Edge]
  nodes: [${type}]
  pageInfo: PageInfo!
}
type ${type}Edge {
  cursor: String!
  node: ${type}
}`;
}

export function containerRegistrySdl(): string {
  return `
"""A container repository (listed oldest first unless sorted)."""
type ContainerRepository {
  id: ContainerRepositoryID!
  name: String!
  path: String!
  location: String!
  createdAt: Time!
  "Timestamp when a tag of the repository was last pushed, moved or deleted (its creation until then)."
  updatedAt: Time!
  tagsCount: Int!
  status: ContainerRepositoryStatus
  "Whether the current user may delete the repository (destroyContainerRepository)."
  canDelete: Boolean!
  project: Project!
}
${connection("ContainerRepository")}

"""Details of a container repository: ContainerRepository with its tags and size."""
type ContainerRepositoryDetails {
  id: ContainerRepositoryID!
  name: String!
  path: String!
  location: String!
  createdAt: Time!
  updatedAt: Time!
  tagsCount: Int!
  status: ContainerRepositoryStatus
  canDelete: Boolean!
  project: Project!
  "Size of the repository in bytes: the sum of its tags' image sizes."
  size: Float
  tags(
    "Sort tags by these criteria."
    sort: ContainerRepositoryTagSort = NAME_ASC
    "Search by tag name."
    name: String
    ${CONNECTION_ARGS}
  ): ContainerRepositoryTagConnection
}

"""Values for sorting container repositories (GitLab's ContainerRepositorySort)."""
enum ContainerRepositorySort { CREATED_ASC CREATED_DESC UPDATED_ASC UPDATED_DESC NAME_ASC NAME_DESC }

"""Values for sorting tags (GitLab's ContainerRepositoryTagSort)."""
enum ContainerRepositoryTagSort { NAME_ASC NAME_DESC }

enum ContainerRepositoryStatus { DELETE_SCHEDULED DELETE_FAILED DELETE_ONGOING }

"""A tag from a container repository (tags are listed by name)."""
type ContainerRepositoryTag {
  name: String!
  path: String!
  location: String!
  digest: String
  revision: String
  shortRevision: String
  totalSize: BigInt
  createdAt: Time
  canDelete: Boolean!
}
${connection("ContainerRepositoryTag")}

input DestroyContainerRepositoryInput {
  clientMutationId: String
  id: ContainerRepositoryID!
}
type DestroyContainerRepositoryPayload {
  clientMutationId: String
  containerRepository: ContainerRepository!
  errors: [String!]!
}
input DestroyContainerRepositoryTagsInput {
  clientMutationId: String
  id: ContainerRepositoryID!
  "At most 20 tag names."
  tagNames: [String!]!
}
type DestroyContainerRepositoryTagsPayload {
  clientMutationId: String
  deletedTagNames: [String!]!
  errors: [String!]!
}

extend type Project {
  containerRepositories(
    "Filter the container repositories by their name."
    name: String
    "Sort container repositories by these criteria."
    sort: ContainerRepositorySort = CREATED_ASC
    ${CONNECTION_ARGS}
  ): ContainerRepositoryConnection
  containerRepositoriesCount: Int
}
extend type Query {
  containerRepository(id: ContainerRepositoryID!): ContainerRepositoryDetails
}
extend type Mutation {
  destroyContainerRepository(input: DestroyContainerRepositoryInput!): DestroyContainerRepositoryPayload
  destroyContainerRepositoryTags(input: DestroyContainerRepositoryTagsInput!): DestroyContainerRepositoryTagsPayload
}
`;
}

export function deployTokensSdl(): string {
  return `
enum DeployTokenScope { READ_REPOSITORY READ_REGISTRY WRITE_REGISTRY READ_PACKAGE_REGISTRY WRITE_PACKAGE_REGISTRY }

"""A deploy token of a project or group (the REST API's deploy token, without its secret)."""
type DeployToken {
  id: DeployTokenID!
  name: String!
  username: String!
  scopes: [DeployTokenScope!]!
  expiresAt: Time
  revoked: Boolean!
  expired: Boolean!
}
${connection("DeployToken")}

input DeployTokenCreateInput {
  clientMutationId: String
  "Full path of the project; give this or groupPath."
  projectPath: ID
  "Full path of the group; give this or projectPath."
  groupPath: ID
  name: String!
  scopes: [DeployTokenScope!]!
  expiresAt: Time
  username: String
}
type DeployTokenCreatePayload {
  clientMutationId: String
  deployToken: DeployToken
  "The secret, in this answer only."
  token: String
  errors: [String!]!
}
input DeployTokenRevokeInput {
  clientMutationId: String
  id: DeployTokenID!
}
type DeployTokenRevokePayload {
  clientMutationId: String
  errors: [String!]!
}

extend type Project {
  deployTokens(active: Boolean, ${CONNECTION_ARGS}): DeployTokenConnection
}
extend type Group {
  deployTokens(active: Boolean, ${CONNECTION_ARGS}): DeployTokenConnection
}
extend type Mutation {
  deployTokenCreate(input: DeployTokenCreateInput!): DeployTokenCreatePayload
  deployTokenRevoke(input: DeployTokenRevokeInput!): DeployTokenRevokePayload
}
`;
}

export function authorizedApplicationsSdl(): string {
  return `
"""An OAuth application the current user has authorized: its live grants, scopes merged."""
type AuthorizedApplication {
  id: AuthnOauthApplicationID!
  name: String!
  "The application's client_id."
  uid: String!
  scopes: [String!]!
  "When the oldest live grant was made."
  createdAt: Time!
}
${connection("AuthorizedApplication")}

input AuthorizedApplicationRevokeInput {
  clientMutationId: String
  id: AuthnOauthApplicationID!
}
type AuthorizedApplicationRevokePayload {
  clientMutationId: String
  "How many grants (token families) were revoked."
  revokedGrants: Int!
  errors: [String!]!
}

extend type CurrentUser {
  authorizedApplications(${CONNECTION_ARGS}): AuthorizedApplicationConnection
}
extend type Mutation {
  authorizedApplicationRevoke(input: AuthorizedApplicationRevokeInput!): AuthorizedApplicationRevokePayload
}
`;
}
