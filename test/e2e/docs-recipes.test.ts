import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { freePort, ROOT_DIR } from "./server";
import { pause, untilProcessGroupGone } from "./wait";

/**
 * The recipes of docs/operations.md that can run here, run as written (only the log file's name is
 * replaced by a temporary path, and the server gets its own port and state directory).
 */
const dir = mkdtempSync(path.join(tmpdir(), "edge-auth-recipes-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The shell lines of the ```sh block that follows `marker` in docs/operations.md, comments dropped. */
function recipe(marker: string): string[] {
  const doc = readFileSync(path.join(ROOT_DIR, "docs/operations.md"), "utf8");
  const from = doc.indexOf(marker);
  expect(from).toBeGreaterThan(-1);
  const block = /```sh\n([\s\S]*?)```/.exec(doc.slice(from))![1];
  return block
    .split("\n")
    .map((l) => l.replace(/\s+#.*$/, "").trim())
    .filter(Boolean);
}

describe("docs/operations.md recipes", () => {
  it("the slowest requests of a session: `npm start -- --verbose > server.log`, then grep | jq prints them", async () => {
    const [serve, analyse] = recipe("the slowest requests");
    expect(serve).toContain("npm start");
    const log = path.join(dir, "server.log");
    const port = await freePort();
    const child = spawn("sh", ["-c", serve.replace("server.log", log)], {
      cwd: ROOT_DIR,
      env: { ...process.env, PORT: String(port), PERSIST_DIR: path.join(dir, "state"), ROOT_PASSWORD: "recipes-Root-Password-42" },
      stdio: "ignore",
      detached: true,
    });
    try {
      const base = `http://127.0.0.1:${port}`;
      const deadline = Date.now() + 170_000;
      let up = false;
      while (!up && Date.now() < deadline) {
        up = await fetch(`${base}/-/health`).then((r) => r.status === 200, () => false);
        if (!up) await pause(100);
      }
      expect(up).toBe(true);
      for (const p of ["/-/health", "/api/v4/version", "/users/sign_in"]) await fetch(`${base}${p}`);
    } finally {
      // Ctrl+C: the whole group; the log is complete once every process of it has exited.
      try {
        process.kill(-child.pid!, "SIGINT");
      } catch {
        // gone
      }
      await untilProcessGroupGone(child.pid!);
    }
    const out = execFileSync("sh", ["-c", analyse.replace("server.log", log)], { cwd: ROOT_DIR, encoding: "utf8" });
    const rows = JSON.parse(out) as { msg: string; route: string; duration_ms: number }[];
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((r) => r.msg === "request")).toBe(true);
    expect(rows.map((r) => r.route)).toContain("/-/health");
    for (let i = 1; i < rows.length; i++) expect(rows[i - 1].duration_ms).toBeGreaterThanOrEqual(rows[i].duration_ms);
  });
});
