import type { ProjectRow } from "../db/projects";
import { sha256Hex } from "../crypto/hash";
import type { Bindings } from "../env";
import { pushManifest } from "./images";
import { MEDIA_TYPES } from "./manifest";
import { uploadMonolithic } from "./uploads";

const encoder = new TextEncoder();

/**
 * Pushes a small OCI image (a config and one layer) under each tag, through the same upload and
 * manifest code as /v2/, so demo repositories are real: pullable, listable, deletable.
 */
export async function pushSeedImage(env: Bindings, project: ProjectRow, image: string, tags: string[]): Promise<void> {
  const path = [project.pathWithNamespace.toLowerCase(), image].filter(Boolean).join("/");
  const target = { repositoryPath: path, projectId: project.id };
  for (const tag of tags) {
    const config = encoder.encode(JSON.stringify({ architecture: "amd64", os: "linux", config: { Labels: { image: path, tag } }, rootfs: { type: "layers", diff_ids: [] } }));
    const layer = encoder.encode(`demo layer of ${path}:${tag}\n`);
    const blobs = [];
    for (const bytes of [config, layer]) {
      const digest = `sha256:${await sha256Hex(bytes)}`;
      await uploadMonolithic(env, target, digest, { stream: new Blob([bytes]).stream(), length: bytes.byteLength });
      blobs.push({ digest, size: bytes.byteLength });
    }
    const manifest = {
      schemaVersion: 2,
      mediaType: MEDIA_TYPES.ociManifest,
      config: { mediaType: "application/vnd.oci.image.config.v1+json", ...blobs[0] },
      layers: [{ mediaType: "application/vnd.oci.image.layer.v1.tar", ...blobs[1] }],
    };
    await pushManifest(env, { projectId: project.id, image, path }, tag, encoder.encode(JSON.stringify(manifest)), MEDIA_TYPES.ociManifest);
  }
}
