import { existsSync, readdirSync, readFileSync } from "node:fs";
import { pause, until } from "../helpers/until";

/** The Node-side waits of the end-to-end files; the polling itself is test/helpers/until.ts. */
export { pause, until };

/** Waits until `at` (a Date.now() value) has passed: a real time bound a test must see pass (a TTL, a window), measured from the event that started it rather than from now. */
export async function untilTime(at: number): Promise<void> {
  const left = at - Date.now();
  if (left > 0) await pause(left);
}

/**
 * Whether any process of the group `pgid` is still running. On Linux it reads /proc, so that a
 * member that has exited but is not reaped yet (a zombie, when no init reaps orphans, as in a
 * container) counts as gone; elsewhere signal 0 tests the group without sending anything.
 */
export function processGroupAlive(pgid: number): boolean {
  if (existsSync("/proc/self/stat")) {
    for (const entry of readdirSync("/proc")) {
      if (!/^\d+$/.test(entry)) continue;
      let stat: string;
      try {
        stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      } catch {
        continue; // exited while we looked
      }
      // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses, so split after the last ")".
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(pgrp) === pgid && state !== "Z" && state !== "X") return true;
    }
    return false;
  }
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Waits until every process of the group `pgid` has exited, at most `withinMs`. */
export async function untilProcessGroupGone(pgid: number, withinMs = 10_000): Promise<void> {
  await until(() => !processGroupAlive(pgid), withinMs, `process group ${pgid} gone`, 50);
}
