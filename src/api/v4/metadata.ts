import { Hono } from "hono";
import pkg from "../../../package.json";
import { getConfig } from "../../config";
import type { AppEnv } from "../../env";
import { requireAuth } from "./auth";

/**
 * GET /api/v4/version and /api/v4/metadata, the endpoints GitLab clients probe first
 * (python-gitlab's version(), glab, gitbeaker). GitLab's shape: the version is the configured
 * service version as major.minor.patch, the revision the build's (SERVICE_REVISION, which
 * `npm start` sets to the git commit; else the package version). There is no KAS here, and this
 * is not GitLab's enterprise edition. Any signed-in token may read them (GitLab accepts read_user).
 */
const metadata = new Hono<AppEnv>();

const PROBE_SCOPES = ["api", "read_api", "read_user"] as const;

function versionInfo(c: { env: AppEnv["Bindings"] }) {
  const config = getConfig(c.env);
  return {
    version: `${config.serviceVersion}.0`,
    revision: config.serviceRevision ?? pkg.version,
    kas: { enabled: false, externalUrl: null, externalK8sProxyUrl: null, version: null },
    enterprise: false,
  };
}

metadata.get("/version", requireAuth(PROBE_SCOPES), (c) => c.json(versionInfo(c)));
metadata.get("/metadata", requireAuth(PROBE_SCOPES), (c) => c.json(versionInfo(c)));

export default metadata;
