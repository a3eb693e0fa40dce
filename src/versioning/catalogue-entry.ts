/**
 * The shape of a row of the catalogue of announced changes (./catalogue.ts). Its own module so the
 * entries/ files can name it without importing the catalogue that imports them.
 */
export type ChangeInterface =
  | "oauth"
  | "rest"
  | "graphql"
  | "ci"
  | "report"
  | "configuration"
  | "operations"
  | "authentication"
  | "events";

export interface CatalogueEntry {
  id: string;
  interface: ChangeInterface;
  /** What is deprecated or removed, in the spec's words. */
  title: string;
  /** What happens at removal. */
  change: string;
  /** Milestone from which the thing is deprecated; null: deprecated at every version served. */
  deprecatedIn: string | null;
  /** Milestone of removal or change; null: announced for a later, unnamed release. */
  removedIn: string | null;
  /** Planned date of the removal milestone (YYYY-MM-DD), when the schedule gives one. */
  date: string | null;
  /** What to use instead. */
  replacement: string | null;
  /** True when the change alters an API answer (and so has tests on each side of its milestone). */
  affectsApi: boolean;
}
