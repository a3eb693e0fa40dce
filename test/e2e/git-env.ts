/**
 * A clean git for the end-to-end tests: `home` as its HOME (no user config), no system config, no
 * prompts, a fixed author and committer, no credential helper unless the test configures one.
 */
export function cleanGitEnv(home: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    HOME: home,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_TERMINAL_PROMPT: "0",
    GIT_AUTHOR_NAME: "E2E",
    GIT_AUTHOR_EMAIL: "e2e@example.com",
    GIT_COMMITTER_NAME: "E2E",
    GIT_COMMITTER_EMAIL: "e2e@example.com",
    ...extra,
  };
}
