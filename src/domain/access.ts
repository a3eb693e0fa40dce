/**
 * GitLab access levels. What each allows is the abilities table (./abilities.ts), and only the
 * domain, the queries and the services name them (test/architecture/abilities.test.ts).
 */
export const AccessLevel = {
  NONE: 0,
  MINIMAL: 5,
  GUEST: 10,
  REPORTER: 20,
  DEVELOPER: 30,
  MAINTAINER: 40,
  OWNER: 50,
} as const;

export type Visibility = "private" | "internal" | "public";
