import { create } from "@bufbuild/protobuf";
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { withVars } from "../../src/config";
import { FileStreamSchema, type FileStream, type Header } from "../../src/gen/proto/plugin_pb";
import { getDb } from "../../src/db/client";
import { insertPlugin } from "../../src/db/plugins";
import { makeUserWithToken, unique } from "../helpers/fixtures";
import { asJson, dec, enc, header, listKeys, pluginClient, PROTOCOLS, workerFetch } from "./client";

type Msg = Partial<Omit<FileStream, "$typeName">>;

/** The parts of `bytes`, `partSize` each, with the rules' fields; `edit` bends one message. */
function parts(name: string, bytes: Uint8Array, partSize: number, h: Header, purpose = "", edit?: (m: Msg[]) => Msg[]): FileStream[] {
  const total = Math.max(1, Math.ceil(bytes.byteLength / partSize));
  let msgs: Msg[] = Array.from({ length: total }, (_, i) => ({
    Header: i === 0 ? h : undefined,
    Name: name,
    Purpose: purpose,
    TotalSize: BigInt(bytes.byteLength),
    TotalPart: BigInt(total),
    Part: BigInt(i + 1),
    Data: bytes.subarray(i * partSize, (i + 1) * partSize),
  }));
  if (edit) msgs = edit(msgs);
  return msgs.map((m) => create(FileStreamSchema, m));
}

async function* stream(msgs: FileStream[]) {
  for (const m of msgs) yield m;
}

function randomBytes(n: number): Uint8Array {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i += 65536) crypto.getRandomValues(out.subarray(i, Math.min(n, i + 65536)));
  return out;
}

async function sha256Hex(b: Uint8Array): Promise<string> {
  return [...new Uint8Array(await crypto.subtle.digest("SHA-256", b as Uint8Array<ArrayBuffer>))].map((x) => x.toString(16).padStart(2, "0")).join("");
}

/** Byte-for-byte comparison (vitest's toEqual walks typed arrays key by key: too slow for MiBs). */
function expectSameBytes(got: Uint8Array, want: Uint8Array) {
  expect(got.byteLength).toBe(want.byteLength);
  let firstDiff = -1;
  for (let i = 0; i < want.byteLength; i++) {
    if (got[i] !== want[i]) {
      firstDiff = i;
      break;
    }
  }
  expect(firstDiff).toBe(-1);
}

async function readBack(token: string, id: string): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  for await (const res of pluginClient("connect", token).chat({ Header: header({ Func: "files.read" }), Data: enc(JSON.stringify({ id })) })) {
    expect(res.Code).toBe(0);
    chunks.push(res.Data);
  }
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.byteLength, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

/** Every file above 1 MiB takes the multipart path. */
const multipartFetch = workerFetch(withVars(env, { UPLOAD_STREAM_PUT_MAX_BYTES: String(1024 * 1024) }));

describe("SendFile over each protocol (spec Plugin RPC operations: client streaming)", () => {
  for (const protocol of PROTOCOLS) {
    it(`${protocol}: a file in several parts is stored with its SHA-256 and read back byte for byte`, async () => {
      const { user, token } = await makeUserWithToken();
      const bytes = randomBytes(300_000);
      const h = header({ Func: "upload" });
      const res = await pluginClient(protocol, token).sendFile(stream(parts("data.bin", bytes, 64 * 1024, h, "artifact")));
      expect(res.Code, res.Desc).toBe(0);
      expect(res.Header).toMatchObject({ UUID: h.UUID, Func: "upload", From: "core" });
      const meta = asJson(res.Data);
      expect(meta).toMatchObject({ name: "data.bin", purpose: "artifact", size: bytes.byteLength, sha256: await sha256Hex(bytes) });
      expect(await listKeys(`plugin-files/${user.id}/`)).toEqual([`plugin-files/${user.id}/${meta.id}`]);
      expectSameBytes(await readBack(token, meta.id), bytes);
      const got = await pluginClient("grpc-web", token).call({ Header: header({ Func: "files.get" }), Data: enc(JSON.stringify({ id: meta.id })) });
      expect(asJson(got.Data)).toMatchObject({ id: meta.id, size: bytes.byteLength, sha256: meta.sha256 });
    });
  }

  it("a file above UPLOAD_STREAM_PUT_MAX_BYTES goes through R2 multipart upload and reads back intact", async () => {
    const { token } = await makeUserWithToken();
    const bytes = randomBytes(19 * 1024 * 1024 + 123);
    const res = await pluginClient("connect", token, multipartFetch).sendFile(stream(parts("big.bin", bytes, 4 * 1024 * 1024, header())));
    expect(res.Code, res.Desc).toBe(0);
    const meta = asJson(res.Data);
    expect(meta.sha256).toBe(await sha256Hex(bytes));
    expectSameBytes(await readBack(token, meta.id), bytes);
  });

  it("an empty file is one part of no bytes", async () => {
    const { token } = await makeUserWithToken();
    const res = await pluginClient("grpc-web", token).sendFile(stream(parts("empty.txt", new Uint8Array(0), 10, header())));
    expect(res.Code).toBe(0);
    expect(asJson(res.Data).size).toBe(0);
  });

  it("another user cannot read or get the file (Code 5)", async () => {
    const owner = await makeUserWithToken();
    const other = await makeUserWithToken();
    const res = await pluginClient("connect", owner.token).sendFile(stream(parts("mine.txt", enc("secret"), 10, header())));
    const id = asJson(res.Data).id;
    const got = await pluginClient("connect", other.token).call({ Header: header({ Func: "files.get" }), Data: enc(JSON.stringify({ id })) });
    expect(got.Code).toBe(5);
    const read = [];
    for await (const r of pluginClient("connect", other.token).chat({ Header: header({ Func: "files.read" }), Data: enc(JSON.stringify({ id })) })) read.push(r);
    expect(read.map((r) => r.Code)).toEqual([5]);
  });

  it("concurrent uploads by one user are kept apart", async () => {
    const { user, token } = await makeUserWithToken();
    const files = Array.from({ length: 4 }, (_, i) => randomBytes(200_000 + i * 1000));
    const results = await Promise.all(
      files.map((b, i) => pluginClient(i % 2 ? "grpc-web" : "connect", token).sendFile(stream(parts(`f${i}.bin`, b, 50_000, header())))),
    );
    for (const [i, r] of results.entries()) {
      expect(r.Code, r.Desc).toBe(0);
      expect(asJson(r.Data).sha256).toBe(await sha256Hex(files[i]));
      expectSameBytes(await readBack(token, asJson(r.Data).id), files[i]);
    }
    expect((await listKeys(`plugin-files/${user.id}/`)).length).toBe(4);
  });
});

describe("SendFile violations end with Code 3 (8 for limits) and keep nothing (DESIGN, SendFile)", () => {
  const bytes = randomBytes(1000);
  const cases: [string, number, (m: Msg[]) => Msg[]][] = [
    ["a gap (part 2 missing)", 3, (m) => [m[0], ...m.slice(2)]],
    ["a repeated part", 3, (m) => [m[0], m[1], m[1], ...m.slice(2)]],
    ["parts out of order", 3, (m) => [m[0], m[2], m[1], ...m.slice(3)]],
    ["a changed Name", 3, (m) => m.map((x, i) => (i === 2 ? { ...x, Name: "other.bin" } : x))],
    ["a changed TotalSize", 3, (m) => m.map((x, i) => (i === 1 ? { ...x, TotalSize: 999n } : x))],
    ["a changed Purpose", 3, (m) => m.map((x, i) => (i === 1 ? { ...x, Purpose: "other" } : x))],
    ["a changed TotalPart", 3, (m) => m.map((x, i) => (i === 1 ? { ...x, TotalPart: 9n } : x))],
    ["lengths that add up to less than TotalSize", 3, (m) => m.map((x, i) => (i === 1 ? { ...x, Data: x.Data!.subarray(1) } : x))],
    ["lengths that add up to more than TotalSize", 3, (m) => m.map((x) => ({ ...x, TotalSize: 900n }))],
    ["the stream ends before TotalPart", 3, (m) => m.slice(0, -1)],
    ["a part beyond TotalPart", 3, (m) => [...m, { ...m[m.length - 1], Part: BigInt(m.length + 1) }]],
    ["Part counted from 0", 3, (m) => m.map((x) => ({ ...x, Part: x.Part! - 1n }))],
    ["a later Header with another UUID", 3, (m) => m.map((x, i) => (i === 1 ? { ...x, Header: header() } : x))],
    ["an empty Name", 3, (m) => m.map((x) => ({ ...x, Name: "" }))],
  ];
  for (const [what, code, edit] of cases) {
    it(`${what} → Code ${code}, nothing in R2`, async () => {
      const { user, token } = await makeUserWithToken();
      const res = await pluginClient("connect", token).sendFile(stream(parts("v.bin", bytes, 100, header(), "", edit)));
      expect(res.Code, res.Desc).toBe(code);
      expect(res.Desc).not.toBe("");
      expect(await listKeys(`plugin-files/${user.id}/`)).toEqual([]);
    });
  }

  it("a violation in the middle of a streaming put aborts it: nothing is kept", async () => {
    const { user, token } = await makeUserWithToken();
    const big = randomBytes(9 * 1024 * 1024);
    const msgs = parts("mid.bin", big, 1024 * 1024, header(), "", (m) => [...m.slice(0, 6), m[7], m[6]]);
    const res = await pluginClient("grpc-web", token).sendFile(stream(msgs));
    expect(res.Code).toBe(3);
    expect(await listKeys(`plugin-files/${user.id}/`)).toEqual([]);
  });

  it("a violation after R2 multipart parts were written aborts the upload: nothing is kept", async () => {
    const { user, token } = await makeUserWithToken();
    const big = randomBytes(20 * 1024 * 1024);
    const msgs = parts("late.bin", big, 4 * 1024 * 1024, header(), "", (m) => [...m.slice(0, 4), m[3], m[4]]);
    const res = await pluginClient("connect", token, multipartFetch).sendFile(stream(msgs));
    expect(res.Code).toBe(3);
    expect(await listKeys(`plugin-files/${user.id}/`)).toEqual([]);
  });

  describe("limits (configurable: UPLOAD_MAX_FILE_BYTES, UPLOAD_MAX_PART_BYTES, UPLOAD_MAX_PARTS)", () => {
    const small = withVars(env, { UPLOAD_MAX_FILE_BYTES: "1000", UPLOAD_MAX_PART_BYTES: "300", UPLOAD_MAX_PARTS: "5" });
    const limited = (token: string) => pluginClient("grpc-web", token, workerFetch(small));
    it("TotalSize over the file limit → Code 8", async () => {
      const { user, token } = await makeUserWithToken();
      const res = await limited(token).sendFile(stream(parts("f.bin", randomBytes(1001), 300, header())));
      expect(res.Code).toBe(8);
      expect(res.Desc).toContain("per file");
      expect(await listKeys(`plugin-files/${user.id}/`)).toEqual([]);
    });
    it("a part over the part limit → Code 8", async () => {
      const { user, token } = await makeUserWithToken();
      const res = await limited(token).sendFile(stream(parts("f.bin", randomBytes(900), 301, header())));
      expect(res.Code).toBe(8);
      expect(res.Desc).toContain("per part");
      expect(await listKeys(`plugin-files/${user.id}/`)).toEqual([]);
    });
    it("TotalPart over the parts limit → Code 8", async () => {
      const { user, token } = await makeUserWithToken();
      const res = await limited(token).sendFile(stream(parts("f.bin", randomBytes(600), 100, header())));
      expect(res.Code).toBe(8);
      expect(res.Desc).toContain("parts");
      expect(await listKeys(`plugin-files/${user.id}/`)).toEqual([]);
    });
    it("exactly at every limit is accepted", async () => {
      const { token } = await makeUserWithToken();
      const res = await limited(token).sendFile(stream(parts("f.bin", randomBytes(1000), 200, header())));
      expect(res.Code, res.Desc).toBe(0);
    });
  });

  it("SendFile to an unknown plugin is Code 5 and stores nothing", async () => {
    const { token } = await makeUserWithToken();
    const before = await listKeys();
    const res = await pluginClient("connect", token).sendFile(stream(parts("f.bin", enc("x"), 10, header({ To: "nobody-at-all" }))));
    expect(res.Code).toBe(5);
    expect(dec(res.Data)).toBe("");
    expect(await listKeys()).toEqual(before);
  });
});

describe("SendFile routed to an external plugin (spec part a: routing by Header.To; the service is a gateway)", () => {
  async function registered() {
    const { user, token } = await makeUserWithToken();
    const name = unique("echo-");
    await insertPlugin(getDb(env.DB), { name, ownerId: user.id, endpoint: "service:ECHO_PLUGIN", description: "" });
    return { user, token, name };
  }

  for (const protocol of PROTOCOLS) {
    it(`${protocol}: the parts reach the plugin in order, byte for byte; its Res comes back with the reply Header rules; the token is not forwarded and nothing is stored here`, async () => {
      const { user, token, name } = await registered();
      const bytes = randomBytes(25_000);
      const h = header({ To: name, Func: "upload" });
      const before = await listKeys();
      const res = await pluginClient(protocol, token).sendFile(stream(parts("data.bin", bytes, 10_000, h, "backup")));
      expect(res.Code).toBe(0);
      expect(res.Desc).toBe("stored by echo");
      expect(asJson(res.Data)).toEqual({
        name: "data.bin",
        purpose: "backup",
        parts: [
          { part: 1, bytes: 10_000 },
          { part: 2, bytes: 10_000 },
          { part: 3, bytes: 5_000 },
        ],
        sha256: await sha256Hex(bytes),
        caller: user.username,
        authorization: null,
      });
      expect(res.Header).toMatchObject({ UUID: h.UUID, From: name, To: "", Func: "upload" });
      expect(await listKeys()).toEqual(before);
    });
  }

  it("a stream that breaks the rules (a gap) is refused with Code 3 as a core upload is, and the plugin answers nothing", async () => {
    const { token, name } = await registered();
    const h = header({ To: name });
    const gap = parts("g.bin", enc("abcdefghij"), 4, h, "", (m) => [m[0], m[2]]);
    const res = await pluginClient("connect", token).sendFile(stream(gap));
    expect(res.Code).toBe(3);
    expect(res.Desc).toContain("expected Part 2, got 3 (a gap)");
  });

  it("the plugin's refusal (a Connect error) becomes its Res code; a plugin without endpoint is Code 14", async () => {
    const { token, name, user } = await registered();
    const refused = await pluginClient("connect", token).sendFile(stream(parts("refuse.bin", enc("x"), 10, header({ To: name }))));
    expect(refused.Code).toBe(7);
    expect(refused.Desc).toContain("the echo plugin refuses this file");
    const silent = unique("silent-");
    await insertPlugin(getDb(env.DB), { name: silent, ownerId: user.id, endpoint: "", description: "" });
    const none = await pluginClient("connect", token).sendFile(stream(parts("f.bin", enc("x"), 10, header({ To: silent }))));
    expect(none.Code).toBe(14);
  });
});
