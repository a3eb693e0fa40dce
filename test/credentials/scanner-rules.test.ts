import { describe, expect, it } from "vitest";
import credentialsDoc from "../../docs/credentials.md?raw";
import { issueEveryKind, type IssuedTokens } from "../helpers/every-token-kind";

/** The gitleaks rules of docs/credentials.md ("Token prefixes and secret-scanner rules"), as a scanner reads them. */
function documentedRules(): Map<string, RegExp> {
  const block = /```toml\n([\s\S]*?)```/.exec(credentialsDoc.slice(credentialsDoc.indexOf("## Token prefixes and secret-scanner rules")))?.[1] ?? "";
  const rules = new Map<string, RegExp>();
  for (const m of block.matchAll(/id = "edge-auth-([a-z-]+)"\nregex = '''(.+?)'''/g)) rules.set(m[1].replace(/-/g, "_"), new RegExp(m[2]));
  return rules;
}

describe("docs/credentials.md scanner rules: every documented prefix finds a fresh token of its kind", () => {
  it("one rule per kind this service issues, each matching a freshly issued token of its kind in full and no token of another kind", async () => {
    const rules = documentedRules();
    const issued = await issueEveryKind();
    const kinds = Object.keys(issued).filter((k) => k !== "ownerToken" && k !== "clientUri") as (keyof IssuedTokens)[];
    expect([...rules.keys()].sort()).toEqual([...kinds].sort());
    for (const kind of kinds) {
      const token = issued[kind];
      const rule = rules.get(kind)!;
      // Found inside a leaked line, and the match is the whole token (nothing of it left over).
      expect(rule.exec(`export TOKEN="${token}" # leaked`)?.[0], kind).toBe(token);
      for (const other of kinds.filter((k) => k !== kind)) expect(rule.test(issued[other]), `${kind} rule on a ${other}`).toBe(false);
    }
  });
});
