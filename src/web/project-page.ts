import type { Context } from "hono";
import type { ProjectAbility } from "../domain/abilities";
import { checkProject, sessionAsker, type CheckedProject, type ProjectAccess } from "../services/abilities";
import type { PageEnv, VisitorEnv } from "./page";
import { projectRoute } from "../http/router";

/**
 * Project paths in page URLs (`/<namespace>/<project>/...`), as GitLab shapes them: the router
 * hands the project path over as the one parameter `project` (src/http/router.ts).
 */
export const PROJECT_PATH = projectRoute();

/**
 * The project of the URL for the signed-in user (or an anonymous visitor), checked for `ability` by the one resolver
 * (src/services/abilities.ts): not found when they may not see it (existence is not revealed),
 * forbidden when they see it but may not do this; the pages' refusal renders both in their words.
 */
export async function projectForPage<A extends ProjectAbility>(c: Context<PageEnv> | Context<VisitorEnv>, ability: A): Promise<{ project: CheckedProject<A>; access: ProjectAccess }> {
  return checkProject(c.env, sessionAsker(c.var.user), c.req.param("project") ?? "", ability);
}

/** Bytes as people read them (GitLab shows MiB with one decimal). */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ["KiB", "MiB", "GiB", "TiB"];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(1)} ${units[i]}`;
}
