import { mkdtempSync, readdirSync, rmSync, statfsSync } from "node:fs";
import path from "node:path";

/**
 * The run's scratch files on tmpfs when the machine has one with room: every Durable Object of
 * the workers runtimes is a SQLite database (with its WAL) in Miniflare's directory under
 * os.tmpdir(), and so are the state directories the end-to-end files give `npm start`. On this
 * machine /tmp is ext4 on a virtual disk, and creating an object's database there is most of what
 * a test of 1,000 real grants costs: issuing 1,000 took 5.2 s with /tmp, 1.8 s with /dev/shm.
 * Miniflare takes no option for that directory (it joins os.tmpdir()), so this sets TMPDIR, for
 * this process and every process it starts, to a directory of its own on /dev/shm, removed when
 * vitest exits. A TMPDIR already set is kept, and without 4 GiB free on /dev/shm (Docker's
 * default is 64 MiB) nothing changes. A directory left by a run that was killed (its name holds its
 * process id) is removed by the next run. Loaded by vitest.config.ts only: the service, `npm start`
 * run by hand and the benchmarks are untouched.
 */
const TMPFS = "/dev/shm";
const ROOM_NEEDED = 4 * 1024 ** 3;

function freeBytes(dir) {
  try {
    const { bavail, bsize } = statfsSync(dir);
    return bavail * bsize;
  } catch {
    return 0;
  }
}

const PREFIX = "edge-auth-test-";
const OWNER = new RegExp(`^${PREFIX}(\\d+)-`);

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === "EPERM";
  }
}

/** Directories of runs that no longer exist (tmpfs holds them in memory until removed). */
function removeLeftovers() {
  for (const name of readdirSync(TMPFS)) {
    const pid = Number(OWNER.exec(name)?.[1]);
    if (pid && !alive(pid)) rmSync(path.join(TMPFS, name), { recursive: true, force: true });
  }
}

if (!process.env.TMPDIR && freeBytes(TMPFS) >= ROOM_NEEDED) {
  removeLeftovers();
  const scratch = mkdtempSync(path.join(TMPFS, `${PREFIX}${process.pid}-`));
  process.env.TMPDIR = scratch;
  process.on("exit", () => rmSync(scratch, { recursive: true, force: true }));
}
