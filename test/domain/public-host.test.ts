import { describe, expect, it } from "vitest";
import { isPublicHost, specialRangeOf } from "../../src/domain/public-host";
import { IPV4_SPECIAL, IPV6_SPECIAL, LOCAL_NAMES } from "../../src/domain/special-purpose-addresses";

/**
 * docs/agents.md, "Client ID Metadata Documents": the public-host guard refuses every range of the
 * IANA special-purpose address registries (IPv4 and IPv6), IPv6 outside global unicast, and names
 * that only resolve inside a network or have an empty label, before any request is made.
 */

/** The first and last address of an IPv4 CIDR row, and the addresses just outside it. */
function v4Edges(cidr: string) {
  const [base, bits] = cidr.split("/");
  const start = base.split(".").reduce((n, p) => n * 256 + Number(p), 0);
  const end = start + 2 ** (32 - Number(bits)) - 1;
  const quad = (n: number) => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join(".");
  return { first: quad(start), last: quad(end), before: start > 0 ? quad(start - 1) : null, after: end < 2 ** 32 - 1 ? quad(end + 1) : null };
}

/** The same for an IPv6 CIDR row, written as eight full groups. */
function v6Edges(cidr: string) {
  const [base, bits] = cidr.split("/");
  const [head, tail = ""] = base.split("::");
  const groups = (s: string) => (s ? s.split(":").map((g) => BigInt(parseInt(g, 16))) : []);
  const h = groups(head);
  const t = groups(tail);
  const all = [...h, ...Array(8 - h.length - t.length).fill(0n), ...t];
  const start = all.reduce((n, g) => (n << 16n) | g, 0n);
  const end = start + 2n ** BigInt(128 - Number(bits)) - 1n;
  const text = (n: bigint) => `[${Array.from({ length: 8 }, (_, i) => ((n >> BigInt(16 * (7 - i))) & 0xffffn).toString(16)).join(":")}]`;
  return { first: text(start), last: text(end) };
}

describe("the public-host guard refuses loopback and local spellings (docs/agents.md, host table)", () => {
  const refused = [
    "[::7f00:1]",
    "[64:ff9b:1::7f00:1]",
    "[::ffff:0:7f00:1]",
    "[100::1]",
    "localhost..",
    "foo.localhost..",
    "foo.local..",
    "localhost.localdomain",
    "foo.localdomain",
    "agent..example",
    ".agent.example",
    "agent.example..",
    "127.0.0.1..",
    "[::]",
    "[::1]",
    "[::127.0.0.1]",
    "[::ffff:127.0.0.1]",
    "[::ffff:8.8.8.8]",
    "[64:ff9b::808:808]",
    "[2002:7f00:1::]",
    "[2001::1]",
    "[5f00::1]",
    "[fe80::1]",
    "[ff02::1]",
    "255.255.255.255",
    "192.31.196.1",
  ];
  for (const host of refused) it(`refuses ${host}`, () => expect(isPublicHost(host)).toBe(false));

  it("lets public names (one trailing dot allowed) and public addresses through", () => {
    for (const host of ["agent.example", "agent.example.", "AGENT.Example", "8.8.8.8", "1.1.1.1", "[2606:4700::1111]", "[2a00:1450:4001::200e]", "100.63.255.255", "100.128.0.0", "172.15.255.255", "172.32.0.0", "198.17.255.255", "198.20.0.0"]) {
      expect(isPublicHost(host), host).toBe(true);
    }
  });

  it("refuses the first and last address of every row of the IANA IPv4 special-purpose table", () => {
    expect(IPV4_SPECIAL.length).toBeGreaterThanOrEqual(19);
    for (const { cidr } of IPV4_SPECIAL) {
      const { first, last } = v4Edges(cidr);
      expect(isPublicHost(first), `${cidr} ${first}`).toBe(false);
      expect(isPublicHost(last), `${cidr} ${last}`).toBe(false);
    }
  });

  it("refuses the first and last address of every row of the IANA IPv6 special-purpose table", () => {
    for (const cidr of ["::/96", "64:ff9b:1::/48", "::ffff:0:0:0/96", "100::/64", "2001:db8::/32", "fc00::/7"]) expect(IPV6_SPECIAL.map((r) => r.cidr)).toContain(cidr);
    for (const { cidr } of IPV6_SPECIAL) {
      const { first, last } = v6Edges(cidr);
      expect(isPublicHost(first), `${cidr} ${first}`).toBe(false);
      expect(isPublicHost(last), `${cidr} ${last}`).toBe(false);
    }
  });

  it("every row is its own: the first and last address of each row fall in that row (the most specific one where rows nest)", () => {
    const prefix = (cidr: string) => Number(cidr.split("/")[1]);
    // The row itself, or a narrower row nested in it (255.255.255.255/32 in 240.0.0.0/4).
    const within = (address: string, row: (typeof IPV4_SPECIAL)[number]) => {
      const found = specialRangeOf(address);
      expect(found, address).not.toBeNull();
      if (found !== row) expect(prefix(found!.cidr), `${address}: ${found!.cidr} inside ${row.cidr}`).toBeGreaterThan(prefix(row.cidr));
    };
    for (const row of IPV4_SPECIAL) {
      const { first, last } = v4Edges(row.cidr);
      within(first, row);
      within(last, row);
    }
    for (const row of IPV6_SPECIAL) {
      const { first, last } = v6Edges(row.cidr);
      within(first.slice(1, -1), row);
      within(last.slice(1, -1), row);
    }
    expect(specialRangeOf("255.255.255.255")?.cidr).toBe("255.255.255.255/32");
    expect(specialRangeOf("10.1.2.3")?.cidr).toBe("10.0.0.0/8");
    expect(specialRangeOf("8.8.8.8")).toBeNull();
    expect(specialRangeOf("2606:4700::1111")).toBeNull();
  });

  it("an IPv4 address just outside a row is judged by its own range, not the neighbour's", () => {
    // 100.64.0.0/10's and 198.18.0.0/15's neighbours are public; 0.0.0.0/8's next one is too.
    for (const cidr of ["100.64.0.0/10", "198.18.0.0/15", "0.0.0.0/8", "172.16.0.0/12"]) {
      const { before, after } = v4Edges(cidr);
      for (const neighbour of [before, after].filter((n): n is string => n !== null)) expect(isPublicHost(neighbour), `${cidr} neighbour ${neighbour}`).toBe(true);
    }
  });

  it("refuses IPv6 outside global unicast (2000::/3), whatever the table says", () => {
    for (const host of ["[1fff:ffff::1]", "[4000::1]", "[8000::1]", "[e000::1]"]) expect(isPublicHost(host), host).toBe(false);
  });

  it("refuses every local name, and every name under one", () => {
    for (const name of LOCAL_NAMES) {
      expect(isPublicHost(name), name).toBe(false);
      expect(isPublicHost(`printer.${name}`), `printer.${name}`).toBe(false);
      expect(isPublicHost(`printer.${name}.`), `printer.${name}.`).toBe(false);
    }
    expect(isPublicHost("intranet")).toBe(false);
  });
});
