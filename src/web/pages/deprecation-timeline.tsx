import type { CatalogueEntry } from "../../versioning/catalogue";
import { compareVersions, milestoneDate } from "../../versioning/version";

/**
 * The schedule as a picture (/help/deprecations): a vertical timeline from 14.0 to 16.0, one stop
 * per milestone where something is deprecated or removed, each stop dated, the configured version
 * marked, and each change placed twice, at its deprecation and at its removal. Vertical, so a
 * phone's 390 px needs no sideways scrolling. Changes deprecated before 14.0 (or at every served
 * version) sit at 14.0; changes with no removal milestone at a last stop, "a later release".
 */
const FIRST = "14.0";
const LAST = "16.0";

interface Stop {
  version: string | null;
  deprecated: CatalogueEntry[];
  removed: CatalogueEntry[];
}

export function timelineStops(entries: readonly CatalogueEntry[], configured: string): Stop[] {
  const stops = new Map<string, Stop>();
  const at = (v: string) => {
    let s = stops.get(v);
    if (!s) stops.set(v, (s = { version: v, deprecated: [], removed: [] }));
    return s;
  };
  at(FIRST);
  at(LAST);
  at(configured);
  const later: Stop = { version: null, deprecated: [], removed: [] };
  for (const e of entries) {
    const since = e.deprecatedIn === null || compareVersions(e.deprecatedIn, FIRST) < 0 ? FIRST : e.deprecatedIn;
    at(since).deprecated.push(e);
    if (e.removedIn) at(e.removedIn).removed.push(e);
    else later.removed.push(e);
  }
  const ordered = [...stops.values()].sort((a, b) => compareVersions(a.version!, b.version!));
  return later.removed.length ? [...ordered, later] : ordered;
}

function EntryLinks(props: { entries: CatalogueEntry[] }) {
  return (
    <ul>
      {props.entries.map((e) => (
        <li>
          <a href={`#${e.id}`}>{e.title}</a>
          {e.deprecatedIn !== null && compareVersions(e.deprecatedIn, FIRST) < 0 ? <span class="muted"> (since {e.deprecatedIn})</span> : null}
        </li>
      ))}
    </ul>
  );
}

export function DeprecationTimeline(props: { entries: readonly CatalogueEntry[]; version: string }) {
  const { version } = props;
  const stops = timelineStops(props.entries, version);
  return (
    <section aria-labelledby="timeline-heading">
      <h2 id="timeline-heading">Timeline</h2>
      <ol class="timeline">
        {stops.map((s) => {
          const when = s.version === null ? "later" : compareVersions(s.version, version) < 0 ? "past" : compareVersions(s.version, version) === 0 ? "current" : "future";
          return (
            <li class={`stop ${when}`} id={s.version ? `milestone-${s.version}` : "milestone-later"} aria-current={when === "current" ? "step" : undefined}>
              <div class="stop-head">
                <strong>{s.version ?? "A later release"}</strong>
                {s.version ? <span class="muted"> {milestoneDate(s.version)}</span> : null}
                {when === "current" ? <span class="badge here">This service ({version})</span> : null}
              </div>
              {s.deprecated.length ? (
                <div class="stop-group">
                  <span class="badge deprecated">Deprecated</span>
                  <EntryLinks entries={s.deprecated} />
                </div>
              ) : null}
              {s.removed.length ? (
                <div class="stop-group">
                  <span class="badge removed">{s.version ? "Removed" : "Removal planned"}</span>
                  <EntryLinks entries={s.removed} />
                </div>
              ) : null}
            </li>
          );
        })}
      </ol>
    </section>
  );
}
