/**
 * A runner's tags and settings rules (GitLab's Ci::Runner validations), one definition for REST,
 * GraphQL and registration. Tags are stored as one comma-separated, sorted, de-duplicated string.
 */

/** The stored form of a tag list: trimmed, without empties or duplicates, sorted, comma-joined. */
export const normaliseTags = (tags: readonly string[] | undefined): string =>
  [...new Set((tags ?? []).map((t) => t.trim()).filter(Boolean))].sort().join(",");

/** The tags of a stored tag list, as both surfaces render them (tag_list, tagList). */
export const tagsOf = (tagList: string): string[] => (tagList ? tagList.split(",") : []);

/** Tags given as a comma-separated string or an array (REST accepts both), trimmed, without empties. */
export const parseTagInput = (v: string | readonly string[]): string[] =>
  (typeof v === "string" ? v.split(",") : [...v]).map((t) => t.trim()).filter(Boolean);

/** GitLab's smallest maximum_timeout: 10 minutes. */
export const MIN_MAXIMUM_TIMEOUT = 600;

/** Validation errors by attribute, as GitLab's model reports them (`{"message":{attr:[...]}}`). */
export type RunnerSettingsErrors = Record<string, string[]>;

/** The settings a runner would have after a change; errors when GitLab's model would refuse them. */
export function runnerSettingsErrors(next: { tagList: string; runUntagged: boolean; maximumTimeout: number | null }): RunnerSettingsErrors | null {
  const errors: RunnerSettingsErrors = {};
  if (next.tagList === "" && !next.runUntagged) errors.tags_list = ["can not be empty when runner is not allowed to pick untagged jobs"];
  if (next.maximumTimeout !== null && next.maximumTimeout < MIN_MAXIMUM_TIMEOUT) errors.maximum_timeout = ["needs to be at least 10 minutes"];
  return Object.keys(errors).length ? errors : null;
}

/** Rails' full messages ("Tags list can not be empty ..."), as GraphQL mutations return them. */
export function fullMessages(errors: RunnerSettingsErrors): string[] {
  return Object.entries(errors).flatMap(([attr, msgs]) => {
    const human = attr.replace(/_/g, " ");
    return msgs.map((m) => `${human[0].toUpperCase()}${human.slice(1)} ${m}`);
  });
}
