import { getConfig } from "../config";
import { lintPipeline } from "../domain/ci-lint";
import { checkSecurityReport } from "../domain/security-report";
import type { FileStream } from "../gen/proto/plugin_pb";
import { invalidArgument, PluginError, ResCode } from "./codes";
import { jsonData } from "./functions";
import { insertFile } from "../db/plugins";
import { receiveFile } from "./upload";
import type { Principal } from "../credentials/principal";
import type { Db } from "../db/client";
import type { FnContext } from "./functions";

const REPORT_PREFIX = "security_report:";
const decoder = new TextDecoder();

/**
 * Receives a SendFile stream into R2, processes it by Purpose, and records it. Purpose
 * security_report:<type> validates the report as the schedule says; ci_config lints the pipeline
 * file with the rules of POST /ci/lint; anything else is stored as is. `env` is the part of the
 * opened envelope (./service.ts) it needs.
 */
export async function sendFile(
  first: FileStream,
  rest: AsyncIterator<FileStream>,
  env: { principal: Principal; db: Db; fc: FnContext },
): Promise<{ data: Uint8Array; warnings: string[]; deprecatedIds: string[] }> {
  const bindings = env.fc.worker.env;
  const config = getConfig(bindings);
  const purpose = first.Purpose;
  const isReport = purpose.startsWith(REPORT_PREFIX);
  const isCi = purpose === "ci_config";
  const id = crypto.randomUUID();
  const key = `plugin-files/${env.principal.user.id}/${id}`;
  const file = await receiveFile(first, rest, {
    bucket: bindings.FILES,
    key,
    limits: config.upload,
    keepContent: isReport || isCi,
  });

  let processing: Record<string, unknown> = {};
  let warnings: string[] = [];
  let deprecatedIds: string[] = [];
  try {
    if (isReport) {
      const type = purpose.slice(REPORT_PREFIX.length);
      const check = checkSecurityReport(type, decoder.decode(file.content!), config.serviceVersion);
      if (!check.accepted) throw invalidArgument(`security report not processed: ${check.errors.join("; ")}`);
      warnings = check.warnings;
      if (check.deprecatedId) deprecatedIds = [check.deprecatedId];
      processing = { kind: "security_report", type, schema_version: check.version, findings: check.findings, warnings };
    } else if (isCi) {
      const lint = lintPipeline(decoder.decode(file.content!), config.serviceVersion);
      warnings = lint.warnings;
      deprecatedIds = lint.deprecatedIds;
      processing = { kind: "ci_config", valid: lint.valid, errors: lint.errors, warnings: lint.warnings };
    }
    await insertFile(env.db, {
      id,
      ownerId: env.principal.user.id,
      name: file.name,
      purpose: file.purpose,
      size: file.size,
      sha256: file.sha256,
      key,
      processing: JSON.stringify(processing),
      createdAt: Date.now(),
    });
  } catch (err) {
    // A refused report (or a failed record) keeps nothing.
    await bindings.FILES.delete(key);
    if (err instanceof PluginError) throw err;
    throw new PluginError(ResCode.INTERNAL, "the file could not be recorded");
  }
  const reply: Record<string, unknown> = { id, name: file.name, purpose: file.purpose, size: file.size, sha256: file.sha256 };
  if (isReport || isCi) reply.processing = processing;
  return { data: jsonData(reply), warnings, deprecatedIds };
}
