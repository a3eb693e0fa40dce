import { create } from "@bufbuild/protobuf";
import { createHash, randomFillSync } from "node:crypto";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { FileStreamSchema } from "../../src/gen/proto/plugin_pb";
import { dec, enc, header, pluginClient, PROTOCOLS, rootPat, rootToken } from "./plugin-helpers";

const MiB = 1024 * 1024;
const baseURL = inject("baseURL");
let token = "";
let pat = "";

beforeAll(async () => {
  token = await rootToken(baseURL, inject("rootPassword"));
  pat = await rootPat(baseURL, token);
});

describe("SendFile end to end with @connectrpc/connect-node (spec Plugin RPC operations: client streaming)", () => {
  const bytes = randomFillSync(new Uint8Array(50 * MiB));
  const sha256 = createHash("sha256").update(bytes).digest("hex");

  for (const protocol of PROTOCOLS) {
    it(`${protocol}: a 50 MiB file in 4 MiB parts is stored and read back byte for byte`, async () => {
      const client = pluginClient(protocol, baseURL, protocol === "grpc-web" ? pat : token);
      const part = 4 * MiB;
      const total = Math.ceil(bytes.byteLength / part);
      const h = header({ Func: "upload" });
      async function* parts() {
        for (let i = 0; i < total; i++) {
          yield create(FileStreamSchema, {
            Header: h,
            Name: `big-${protocol}.bin`,
            Purpose: "e2e",
            TotalSize: BigInt(bytes.byteLength),
            TotalPart: BigInt(total),
            Part: BigInt(i + 1),
            Data: bytes.subarray(i * part, (i + 1) * part),
          });
        }
      }
      const res = await client.sendFile(parts());
      expect(res.Code, res.Desc).toBe(0);
      const meta = JSON.parse(dec(res.Data));
      expect(meta).toMatchObject({ name: `big-${protocol}.bin`, purpose: "e2e", size: bytes.byteLength, sha256 });

      const back = createHash("sha256");
      let at = 0;
      let mismatch = -1;
      for await (const chunk of client.chat({ Header: header({ Func: "files.read" }), Data: enc(JSON.stringify({ id: meta.id, chunk_size: 4 * MiB })) })) {
        expect(chunk.Code).toBe(0);
        if (mismatch < 0 && Buffer.compare(Buffer.from(chunk.Data), Buffer.from(bytes.subarray(at, at + chunk.Data.byteLength))) !== 0) mismatch = at;
        back.update(chunk.Data);
        at += chunk.Data.byteLength;
      }
      expect(mismatch).toBe(-1);
      expect(at).toBe(bytes.byteLength);
      expect(back.digest("hex")).toBe(sha256);
    });
  }

  it("a gap in the parts is Code 3 over the wire", async () => {
    const client = pluginClient("connect", baseURL, token);
    const h = header();
    async function* parts() {
      for (const p of [1, 3]) yield create(FileStreamSchema, { Header: h, Name: "gap.bin", TotalSize: 2n, TotalPart: 3n, Part: BigInt(p), Data: new Uint8Array(1) });
    }
    const res = await client.sendFile(parts());
    expect(res.Code).toBe(3);
    expect(res.Desc).toContain("expected Part 2");
  });
});
