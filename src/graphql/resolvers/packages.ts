import type { GroupRow, ProjectRow } from "../../db/projects";
import { Kind, type GraphQLResolveInfo, type SelectionSetNode } from "graphql";
import { knownTotal, paginate, type ConnectionArgs } from "../connection";
import { loadProject, mayOnProject, primeProjectAccess, visibleProject, type GqlContext } from "../context";
import { listPackages as listProjectPackages, listPackagesOfProjects, type PackageListing } from "../../db/packages";
import { findPackage, groupTreeProjectsWithLevels, listOtherVersions, listPackageFiles, listPackagePipelines, type PackageFileRow, type PackageRow, type PackageSort } from "../../db/package-lists";
import { parseGid, toGid } from "../schema/global-id";

/**
 * Package, PackageBase and PackageDetailsType (schedule: Package.pipelines and Package.versions
 * removed in 15.0; PackageDetailsType.versions without pipelines from 15.0). The schema decides
 * which of these fields exist; resolvers only note deprecated use.
 */
interface PackageArgs extends ConnectionArgs {
  packageName?: string | null;
  packageType?: string | null;
  sort?: PackageSort | null;
}

const baseFields = {
  id: (p: PackageRow) => p.id,
  packageType: (p: PackageRow) => p.packageType.toUpperCase(),
  status: (p: PackageRow) => p.status.toUpperCase(),
  updatedAt: (p: PackageRow) => p.createdAt,
  project: (p: PackageRow, _: unknown, ctx: GqlContext) => loadProject(ctx, p.projectId),
};

/** Whether the field's selection (fragments included) asks for a field of that name at any depth. */
function selectsField(info: GraphQLResolveInfo, name: string): boolean {
  const seen = new Set<string>();
  const walk = (set: SelectionSetNode | undefined): boolean =>
    !!set?.selections.some((s) => {
      if (s.kind === Kind.FIELD) return s.name.value === name || walk(s.selectionSet);
      if (s.kind === Kind.INLINE_FRAGMENT) return walk(s.selectionSet);
      if (seen.has(s.name.value)) return false;
      seen.add(s.name.value);
      return walk(info.fragments[s.name.value]?.selectionSet);
    });
  return info.fieldNodes.some((n) => walk(n.selectionSet));
}

const pipelinesOf = (p: PackageRow, args: ConnectionArgs, ctx: GqlContext) => paginate(args, (w) => listPackagePipelines(ctx.db, p.id, w));

/** GitLab's PackageSort (CREATED_DESC by default) as a listing of the packages' table. */
function listing(args: PackageArgs, w: { limit: number; offset: number }): PackageListing {
  const [col, dir] = (args.sort ?? "CREATED_DESC").split("_");
  const orderBy = ({ CREATED: "created_at", NAME: "name", VERSION: "version", TYPE: "type" } as const)[col as "CREATED"];
  const filter = { listedOnly: true, packageName: args.packageName ?? undefined, packageType: args.packageType?.toLowerCase() };
  return { filter, orderBy, sort: dir === "ASC" ? "asc" : "desc", limit: w.limit, offset: w.offset };
}

export const packageResolvers = {
  Query: {
    package: async (_: unknown, { id }: { id: string }, ctx: GqlContext) => {
      const pkg = await findPackage(ctx.db, parseGid(id, "Packages::Package", "PackagesPackageID"));
      if (!pkg) return null;
      return (await visibleProject(ctx, pkg.projectId, "read_package")) ? pkg : null;
    },
  },
  Project: {
    packages: async (project: ProjectRow, args: PackageArgs, ctx: GqlContext) => {
      if (!(await mayOnProject(ctx, project, "read_package"))) return null;
      return paginate(args, async (w) => knownTotal(w, await listProjectPackages(ctx.db, project.id, listing(args, w))));
    },
  },
  Group: {
    // Packages of the group's projects (subgroups included) that the caller may read.
    packages: async (group: GroupRow, args: PackageArgs, ctx: GqlContext) => {
      // The projects and the caller's level on each in one batch, primed into the request memo so
      // the visibility check (and nested Package.project fields) query nothing per project.
      const rows = await groupTreeProjectsWithLevels(ctx.db, group.id, ctx.principal?.user.id ?? null);
      const visible: number[] = [];
      for (const { project, level } of rows) {
        primeProjectAccess(ctx, project, level);
        if (await mayOnProject(ctx, project, "read_package")) visible.push(project.id);
      }
      return paginate(args, async (w) => knownTotal(w, await listPackagesOfProjects(ctx.db, visible, listing(args, w))));
    },
  },
  Package: {
    ...baseFields,
    pipelines: (p: PackageRow, args: ConnectionArgs, ctx: GqlContext) => {
      ctx.deprecations.add("graphql-package-pipelines");
      return pipelinesOf(p, args, ctx);
    },
    versions: (p: PackageRow, args: ConnectionArgs, ctx: GqlContext) => {
      ctx.deprecations.add("graphql-package-versions");
      return paginate(args, (w) => listOtherVersions(ctx.db, p, w));
    },
  },
  PackageBase: baseFields,
  PackageDetailsType: {
    ...baseFields,
    versions: (p: PackageRow, args: ConnectionArgs, ctx: GqlContext, info: GraphQLResolveInfo) => {
      // The field stays; what is deprecated (and gone in 15.0) is asking its nodes for pipelines.
      if (selectsField(info, "pipelines")) ctx.deprecations.add("graphql-package-details-versions-pipelines");
      return paginate(args, (w) => listOtherVersions(ctx.db, p, w));
    },
    pipelines: pipelinesOf,
    packageFiles: (p: PackageRow, args: ConnectionArgs, ctx: GqlContext) => paginate(args, (w) => listPackageFiles(ctx.db, p.id, w)),
  },
  PackageFile: {
    id: (f: PackageFileRow) => toGid("Packages::PackageFile", f.id),
    size: (f: PackageFileRow) => String(f.size),
  },
};
