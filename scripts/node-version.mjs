// The Node the scripts need, checked before anything else is loaded. scripts/start.mjs and
// scripts/git-origin.mjs import TypeScript files they share with the Worker (src/config-variables.ts,
// src/git/origin-signature.ts), which Node loads without a flag from 22.18 (23.6 on the 23 line);
// an older Node fails on them with ERR_UNKNOWN_FILE_EXTENSION, which says nothing of what to do.
// This file must stay plain JavaScript that any Node runs, and import nothing.

/** The oldest Node that loads the shared TypeScript files (type stripping on by default). */
export const MINIMUM_NODE = "22.18.0";

/** Why `version` (process.versions.node) cannot run `script`, with what to run instead; null when it can. */
export function nodeVersionProblem(version, script, args = "") {
  const [major, minor] = String(version).split(".").map(Number);
  const supported = major > 23 || (major === 23 && minor >= 6) || (major === 22 && minor >= 18);
  if (supported) return null;
  const rest = args ? ` ${args}` : "";
  return [
    `${script} needs Node ${MINIMUM_NODE} or later (it loads the TypeScript files it shares with the Worker); this is Node ${version}.`,
    `Run it with the project's own Node, which npm install puts in node_modules/.bin: node_modules/.bin/node ${script}${rest}`,
    script === "scripts/start.mjs" ? "or simply: npm start (npm scripts run the project's Node)" : `or install Node ${MINIMUM_NODE} or later.`,
  ].join("\n");
}

/** Stops the process with the problem above (exit status 1) when this Node cannot run `script` (its own arguments repeated). */
export function exitUnlessSupportedNode(script) {
  const problem = nodeVersionProblem(process.versions.node, script, process.argv.slice(2).join(" "));
  if (!problem) return;
  console.error(problem);
  process.exit(1);
}
