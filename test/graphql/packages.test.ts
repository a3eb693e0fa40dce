import { describe, expect, it } from "vitest";
import { AccessLevel } from "../../src/domain/access";
import { makeUserWithToken, unique } from "../helpers/fixtures";
import { gid, groupWithProject, memberToken, packageVersion, pipeline } from "./fixtures";
import { fieldsOf, gql } from "./helpers";

/** Schedule part b, GraphQL changes: the package rows, each on both sides of 15.0. */
async function packageWithTwoVersions() {
  const ctx = await groupWithProject();
  const name = unique("pkg");
  const p1 = await pipeline(ctx.project.id);
  const p2 = await pipeline(ctx.project.id);
  const v1 = await packageVersion(ctx.project.id, name, "1.0.0", [p1.id]);
  const v2 = await packageVersion(ctx.project.id, name, "2.0.0", [p2.id]);
  return { ...ctx, name, v1, v2, p1, p2 };
}

const listQuery = (fields: string) => `query($p: ID!) { project(fullPath: $p) { packages(sort: VERSION_ASC) { count nodes { name version ${fields} } } } }`;

describe("graphql-package-pipelines: Package.pipelines (deprecated 14.6) is removed in 15.0", () => {
  it("14.10 lists each package's pipelines, marked deprecated (field and Deprecation header)", async () => {
    const { project, token, p1, p2 } = await packageWithTwoVersions();
    const r = await gql(listQuery("pipelines { nodes { id iid status } }"), { variables: { p: project.pathWithNamespace }, token, version: "14.10" });
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data.project.packages.nodes.map((n: any) => n.pipelines.nodes[0].id)).toEqual([gid("Ci::Pipeline", p1.id), gid("Ci::Pipeline", p2.id)]);
    expect(r.headers.get("link")).toContain("graphql-package-pipelines");
    const intro = await gql(`{ __type(name: "Package") { fields(includeDeprecated: true) { name isDeprecated } } }`, { version: "14.10" });
    expect(intro.body.data.__type.fields.find((f: any) => f.name === "pipelines").isDeprecated).toBe(true);
  });

  it("15.0 has no Package.pipelines: the query fails validation", async () => {
    const { project, token } = await packageWithTwoVersions();
    expect(await fieldsOf("Package", "15.0")).not.toContain("pipelines");
    const r = await gql(listQuery("pipelines { nodes { id } }"), { variables: { p: project.pathWithNamespace }, token, version: "15.0" });
    expect(r.body.data).toBeUndefined();
    expect(r.body.errors[0].message).toBe('Cannot query field "pipelines" on type "Package".');
  });
});

describe("graphql-package-versions: PackageType's versions field is removed in 15.0 (remains on PackageDetailsType)", () => {
  it("14.10 answers Package.versions with the other versions", async () => {
    const { project, token } = await packageWithTwoVersions();
    const r = await gql(listQuery("versions { nodes { version } }"), { variables: { p: project.pathWithNamespace }, token, version: "14.10" });
    expect(r.body.data.project.packages.nodes).toEqual([
      { name: expect.any(String), version: "1.0.0", versions: { nodes: [{ version: "2.0.0" }] } },
      { name: expect.any(String), version: "2.0.0", versions: { nodes: [{ version: "1.0.0" }] } },
    ]);
    expect(r.headers.get("link")).toContain("graphql-package-versions");
  });

  it("15.0: Package.versions fails validation, PackageDetailsType.versions still answers", async () => {
    const { project, token, v1 } = await packageWithTwoVersions();
    expect(await fieldsOf("Package", "15.0")).not.toContain("versions");
    const r = await gql(listQuery("versions { nodes { version } }"), { variables: { p: project.pathWithNamespace }, token, version: "15.0" });
    expect(r.body.errors[0].message).toContain('Cannot query field "versions" on type "Package".');
    const d = await gql(`query($id: PackagesPackageID!) { package(id: $id) { version versions { count nodes { id version } } } }`, {
      variables: { id: gid("Packages::Package", v1.id) },
      token,
      version: "15.0",
    });
    expect(d.body.data.package.versions.nodes).toEqual([{ id: expect.stringMatching(/^gid:\/\/gitlab\/Packages::Package\/\d+$/), version: "2.0.0" }]);
  });
});

describe("graphql-package-details-versions-pipelines: PackageDetailsType.versions loses its pipelines sub-field in 15.0", () => {
  const q = `query($id: PackagesPackageID!) { package(id: $id) { versions { nodes { id version pipelines { nodes { id } } } } } }`;

  it("14.10 answers versions { pipelines }", async () => {
    const { token, v1, p2 } = await packageWithTwoVersions();
    const r = await gql(q, { variables: { id: gid("Packages::Package", v1.id) }, token, version: "14.10" });
    expect(r.body.data.package.versions.nodes[0].pipelines.nodes).toEqual([{ id: gid("Ci::Pipeline", p2.id) }]);
    expect(r.headers.get("link")).toContain("graphql-package-details-versions-pipelines");
    // versions itself is not deprecated: without the sub-field nothing is flagged for this row.
    const plain = await gql(`query($id: PackagesPackageID!) { package(id: $id) { versions { nodes { version } } } }`, { variables: { id: gid("Packages::Package", v1.id) }, token, version: "14.10" });
    expect(plain.headers.get("link") ?? "").not.toContain("graphql-package-details-versions-pipelines");
  });

  it("15.0 refuses versions { pipelines }; the version's own pipelines field answers instead", async () => {
    const { token, v1, v2, p2 } = await packageWithTwoVersions();
    const r = await gql(q, { variables: { id: gid("Packages::Package", v1.id) }, token, version: "15.0" });
    expect(r.body.errors[0].message).toBe('Cannot query field "pipelines" on type "PackageBase".');
    const own = await gql(`query($id: PackagesPackageID!) { package(id: $id) { version pipelines { nodes { id } } packageFiles { nodes { fileName size } } } }`, {
      variables: { id: gid("Packages::Package", v2.id) },
      token,
      version: "15.0",
    });
    expect(own.body.data.package.pipelines.nodes).toEqual([{ id: gid("Ci::Pipeline", p2.id) }]);
    expect(own.body.data.package.packageFiles.nodes[0].size).toBe("10");
  });
});

describe("packages: visibility and filters", () => {
  it("hides a private project's packages from non-members (null) and guests, and shows them to reporters", async () => {
    const { project, v1 } = await packageWithTwoVersions();
    const { token: stranger } = await makeUserWithToken({ scopes: ["read_api"] });
    const r = await gql(`query($id: PackagesPackageID!) { package(id: $id) { name } }`, { variables: { id: gid("Packages::Package", v1.id) }, token: stranger });
    expect(r.body.data.package).toBeNull();
    const { token: guest } = await memberToken("project", project.id, AccessLevel.GUEST, ["read_api"]);
    const g = await gql(`query($p: ID!) { project(fullPath: $p) { packages { count } } }`, { variables: { p: project.pathWithNamespace }, token: guest });
    expect(g.body.data.project.packages).toBeNull();
    const { token: reporter } = await memberToken("project", project.id, AccessLevel.REPORTER, ["read_api"]);
    const ok = await gql(`query($p: ID!) { project(fullPath: $p) { packages { count } } }`, { variables: { p: project.pathWithNamespace }, token: reporter });
    expect(ok.body.data.project.packages.count).toBe(2);
  });

  it("shows a public project's packages to anonymous callers, filtered by name and type", async () => {
    const { project, name } = await (async () => {
      const ctx = await groupWithProject({ visibility: "public" });
      const name = unique("pub");
      await packageVersion(ctx.project.id, name, "0.1.0");
      await packageVersion(ctx.project.id, unique("other"), "0.1.0");
      return { ...ctx, name };
    })();
    const r = await gql(`query($p: ID!, $n: String) { project(fullPath: $p) { packages(packageName: $n, packageType: GENERIC) { count nodes { name packageType status } } } }`, {
      variables: { p: project.pathWithNamespace, n: name },
    });
    expect(r.body.data.project.packages).toEqual({ count: 1, nodes: [{ name, packageType: "GENERIC", status: "DEFAULT" }] });
  });

  it("Group.packages lists the packages of the group's projects", async () => {
    const { group, token } = await packageWithTwoVersions();
    const r = await gql(`query($g: ID!) { group(fullPath: $g) { packages { count } } }`, { variables: { g: group.fullPath }, token });
    expect(r.body.data.group.packages.count).toBe(2);
  });
});
