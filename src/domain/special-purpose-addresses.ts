/**
 * The IANA special-purpose address registries, as of 2026 (iana-ipv4-special-registry and
 * iana-ipv6-special-registry, RFC 6890 and the RFCs each row names), plus the multicast and
 * broadcast ranges those registries leave to others. Every row is refused by the public-host guard
 * (./public-host.ts), the rows the registry calls "globally reachable" (AS112, AMT, NAT64's
 * well-known prefix, 6to4, TEREDO) included: a document this server fetches because someone named
 * it is never served from an anycast sink, a translator or a tunnel's address, and refusing is the
 * safe side. docs/agents.md shows the table.
 */
export interface SpecialRange {
  /** The range in CIDR notation, as the registry writes it. */
  cidr: string;
  /** The registry's name of the range, and the RFC it comes from. */
  name: string;
}

export const IPV4_SPECIAL: readonly SpecialRange[] = [
  { cidr: "0.0.0.0/8", name: '"This network" (RFC 791)' },
  { cidr: "10.0.0.0/8", name: "Private-Use (RFC 1918)" },
  { cidr: "100.64.0.0/10", name: "Shared Address Space (RFC 6598)" },
  { cidr: "127.0.0.0/8", name: "Loopback (RFC 1122)" },
  { cidr: "169.254.0.0/16", name: "Link Local (RFC 3927)" },
  { cidr: "172.16.0.0/12", name: "Private-Use (RFC 1918)" },
  { cidr: "192.0.0.0/24", name: "IETF Protocol Assignments (RFC 6890), DS-Lite, NAT64 discovery, PCP and TURN anycast within" },
  { cidr: "192.0.2.0/24", name: "Documentation TEST-NET-1 (RFC 5737)" },
  { cidr: "192.31.196.0/24", name: "AS112-v4 (RFC 7535)" },
  { cidr: "192.52.193.0/24", name: "AMT (RFC 7450)" },
  { cidr: "192.88.99.0/24", name: "Deprecated 6to4 Relay Anycast (RFC 7526)" },
  { cidr: "192.168.0.0/16", name: "Private-Use (RFC 1918)" },
  { cidr: "192.175.48.0/24", name: "Direct Delegation AS112 Service (RFC 7534)" },
  { cidr: "198.18.0.0/15", name: "Benchmarking (RFC 2544)" },
  { cidr: "198.51.100.0/24", name: "Documentation TEST-NET-2 (RFC 5737)" },
  { cidr: "203.0.113.0/24", name: "Documentation TEST-NET-3 (RFC 5737)" },
  { cidr: "224.0.0.0/4", name: "Multicast (RFC 5771)" },
  { cidr: "240.0.0.0/4", name: "Reserved (RFC 1112)" },
  { cidr: "255.255.255.255/32", name: "Limited Broadcast (RFC 919)" },
];

export const IPV6_SPECIAL: readonly SpecialRange[] = [
  { cidr: "::/96", name: "Unspecified, loopback and IPv4-compatible (deprecated) addresses (RFC 4291)" },
  { cidr: "::ffff:0:0/96", name: "IPv4-mapped Address (RFC 4291)" },
  { cidr: "::ffff:0:0:0/96", name: "IPv4-translated Address (RFC 2765)" },
  { cidr: "64:ff9b::/96", name: "IPv4-IPv6 Translat. (RFC 6052)" },
  { cidr: "64:ff9b:1::/48", name: "IPv4-IPv6 Translat., local use (RFC 8215)" },
  { cidr: "100::/64", name: "Discard-Only Address Block (RFC 6666)" },
  { cidr: "100:0:0:1::/64", name: "Dummy IPv6 Prefix (RFC 9780)" },
  { cidr: "2001::/23", name: "IETF Protocol Assignments (RFC 2928): TEREDO, benchmarking, AMT, AS112, ORCHID, DRIP within" },
  { cidr: "2001:db8::/32", name: "Documentation (RFC 3849)" },
  { cidr: "2002::/16", name: "6to4 (RFC 3056)" },
  { cidr: "2620:4f:8000::/48", name: "Direct Delegation AS112 Service (RFC 7534)" },
  { cidr: "3fff::/20", name: "Documentation (RFC 9637)" },
  { cidr: "5f00::/16", name: "Segment Routing (SRv6) SIDs (RFC 9602)" },
  { cidr: "fc00::/7", name: "Unique-Local (RFC 4193)" },
  { cidr: "fe80::/10", name: "Link-Local Unicast (RFC 4291)" },
  { cidr: "fec0::/10", name: "Site-Local, deprecated (RFC 3879)" },
  { cidr: "ff00::/8", name: "Multicast (RFC 4291)" },
];

/**
 * Names that never name a public host (the special-use domain names registry, RFC 6761 and
 * successors, and the suffixes networks use for themselves): the name itself and every name under it.
 */
export const LOCAL_NAMES: readonly string[] = ["localhost", "localdomain", "local", "internal", "home.arpa", "lan", "intranet", "corp", "invalid", "onion", "alt"];
