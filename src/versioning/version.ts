/** Service versions are major.minor; only this module compares them. */
export function compareVersions(a: string, b: string): number {
  const [am, an] = a.split(".").map(Number);
  const [bm, bn] = b.split(".").map(Number);
  return am !== bm ? am - bm : an - bn;
}

export function atLeast(version: string, milestone: string): boolean {
  return compareVersions(version, milestone) >= 0;
}

/**
 * Planned release date of a milestone: the schedule's releases fall on the 22nd, 14.0 in June 2021
 * and 15.0 in May 2022, one minor a month; 16.0 is the spec's 2023-04-22.
 */
export function milestoneDate(milestone: string): string {
  const [major, minor] = milestone.split(".").map(Number);
  const base: Record<number, [number, number]> = { 13: [2020, 5], 14: [2021, 6], 15: [2022, 5], 16: [2023, 4] };
  const [year, month] = base[major] ?? [2023 + (major - 16), 4];
  const d = new Date(Date.UTC(year, month - 1 + minor, 22));
  return d.toISOString().slice(0, 10);
}
