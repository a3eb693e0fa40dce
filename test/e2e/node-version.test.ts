import { spawnSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { MINIMUM_NODE, nodeVersionProblem } from "../../scripts/node-version.mjs";
import { ROOT_DIR } from "./server";

/**
 * README, "Run it": `node scripts/start.mjs` or `node scripts/git-origin.mjs` under a Node too old to
 * load the TypeScript they share with the Worker says which Node it needs and what to run, instead
 * of crashing with ERR_UNKNOWN_FILE_EXTENSION.
 */
describe("the scripts check the Node version first and say what to run", () => {
  it("Node 20 and 22.17 are too old (no type stripping by default), 22.18, 23.6 and 24 run", () => {
    for (const old of ["18.19.0", "20.20.2", "22.17.1", "23.5.0"]) expect(nodeVersionProblem(old, "scripts/start.mjs")).toContain(`needs Node ${MINIMUM_NODE}`);
    for (const ok of ["22.18.0", "22.23.3", "23.6.0", "24.1.0"]) expect(nodeVersionProblem(ok, "scripts/start.mjs")).toBeNull();
  });

  // The project's Node, told it is Node 20 before the script loads: the script's own check must stop it.
  const asNode20 = (script: string, args: string[]) =>
    spawnSync(process.execPath, ["--import", 'data:text/javascript,Object.defineProperty(process,"versions",{value:{...process.versions,node:"20.11.1"}})', path.join(ROOT_DIR, script), ...args], {
      cwd: ROOT_DIR,
      encoding: "utf8",
      timeout: 30_000,
      env: { ...process.env, PORT: "1" }, // were the check missing, start.mjs would stop at its configuration check, not start
    });

  it.each([
    ["scripts/start.mjs", [], "node_modules/.bin/node scripts/start.mjs", "npm start"],
    ["scripts/git-origin.mjs", ["--root", "/nonexistent", "--listen", "127.0.0.1:1"], "node_modules/.bin/node scripts/git-origin.mjs --root /nonexistent --listen 127.0.0.1:1", "install Node"],
  ])("%s under Node 20 exits 1 naming the Node it needs and the command to run", (script, args, command, alternative) => {
    const run = asNode20(script, args);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`${script} needs Node ${MINIMUM_NODE} or later`);
    expect(run.stderr).toContain("this is Node 20.11.1");
    expect(run.stderr).toContain(command);
    expect(run.stderr).toContain(alternative);
    expect(run.stderr).not.toContain("ERR_UNKNOWN_FILE_EXTENSION");
  });
});
