import { execFile } from "node:child_process";
import { promisify } from "node:util";

const run = promisify(execFile);

/** Runs Debian's skopeo with `work` as its directory and HOME (its auth file stays there). */
export async function skopeo(work: string, args: string[]): Promise<{ ok: boolean; out: string }> {
  try {
    const { stdout, stderr } = await run("skopeo", args, { cwd: work, env: { ...process.env, HOME: work }, timeout: 120_000, maxBuffer: 20 * 1024 * 1024 });
    return { ok: true, out: stdout + stderr };
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    return { ok: false, out: `${e.stdout ?? ""}${e.stderr ?? ""}${e.message}` };
  }
}
