import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";

/** issue 4: `npm run generate` regenerates src/gen/, and a test fails when the committed code is stale. */
const root = path.resolve(__dirname, "../..");

function files(dir: string, base = dir): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(path.join(dir, e.name), base) : [path.relative(base, path.join(dir, e.name))],
  );
}

describe("generated protobuf code (buf.gen.yaml, local protoc-gen-es)", () => {
  it("src/gen matches what `buf generate` makes from proto/proto/plugin.proto", () => {
    const out = mkdtempSync(path.join(tmpdir(), "plugin-gen-"));
    try {
      const bin = path.join(root, "node_modules", ".bin");
      const res = spawnSync(path.join(bin, "buf"), ["generate", "--output", out], {
        cwd: root,
        env: { ...process.env, PATH: `${bin}${path.delimiter}${process.env.PATH}` },
        encoding: "utf8",
      });
      expect(res.status, res.stderr).toBe(0);
      const fresh = path.join(out, "src", "gen");
      const committed = path.join(root, "src", "gen");
      expect(files(fresh).sort()).toEqual(files(committed).sort());
      for (const f of files(fresh)) {
        expect(readFileSync(path.join(committed, f), "utf8"), `${f} is stale: run npm run generate`).toBe(readFileSync(path.join(fresh, f), "utf8"));
      }
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
