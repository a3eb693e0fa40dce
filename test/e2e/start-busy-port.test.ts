import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, startRefused } from "./server";

/**
 * README, "Run it": `npm start` on a port something else holds (often a first `npm start`) says the
 * port is taken and exits non-zero before migrating, starting anything or printing the banner.
 */
describe("npm start on a busy port", () => {
  let holder: Server;
  let port = 0;
  const dir = mkdtempSync(path.join(tmpdir(), "edge-auth-busy-"));
  beforeAll(async () => {
    port = await freePort();
    holder = createServer((s) => s.end("HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nGitLab OK"));
    await new Promise<void>((r) => holder.listen(port, "127.0.0.1", () => r()));
  });
  afterAll(async () => {
    await new Promise((r) => holder.close(r));
    rmSync(dir, { recursive: true, force: true });
  });

  it("says the port is taken, exits non-zero, prints no banner and touches no state directory", async () => {
    const persist = path.join(dir, "state");
    const { status, output } = await startRefused({ PORT: String(port), PERSIST_DIR: persist });
    expect(status).toBe(1);
    expect(output).toContain(`port ${port} on 127.0.0.1 is already taken`);
    expect(output).not.toContain("is serving");
    expect(existsSync(persist)).toBe(false);
  });
});
