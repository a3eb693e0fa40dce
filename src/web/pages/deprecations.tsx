import { CATALOGUE } from "../../versioning/catalogue";
import { gate } from "../../http/gate";
import { stateAt, type ChangeState } from "../../versioning/gate";
import { milestoneDate } from "../../versioning/version";
import type { AppEnv } from "../../env";
import { TableHead } from "../components";
import { renderPage } from "../page";
import { DeprecationTimeline } from "./deprecation-timeline";
import { pageApp } from "../door";

/**
 * /help/deprecations: the catalogue of announced changes with each entry's state at the configured
 * service version. Each entry has an anchor, because the Link header of a deprecated response
 * points at /help/deprecations#<id>.
 */
const deprecations = pageApp<AppEnv>({ enter: "anyone" });

const STATE_TEXT: Record<ChangeState, string> = {
  removed: "Removed at this version",
  deprecated: "Deprecated, still served",
  announced: "Announced",
};

deprecations.get("/help/deprecations", async (c) => {
  const { version } = gate(c);
  const groups = new Map<string, typeof CATALOGUE[number][]>();
  for (const e of CATALOGUE) groups.set(e.interface, [...(groups.get(e.interface) ?? []), e]);
  return renderPage(
    c,
    "Deprecations",
    <>
      <h1>Deprecations and removals</h1>
      <p>
        This service runs as version <strong>{version}</strong>. Each announced change below is marked as removed at
        this version or still served. Responses that use something deprecated carry <code>Deprecation</code>,{" "}
        <code>Sunset</code> and <code>Link</code> headers pointing here. The same list is available as JSON at{" "}
        <a href="/api/v4/deprecations">/api/v4/deprecations</a>.
      </p>
      <DeprecationTimeline entries={CATALOGUE} version={version} />
      <h2>All changes</h2>
      <nav aria-label="Interfaces">
        {[...groups.keys()].map((g) => (
          <a href={`#interface-${g}`} class="badge">
            {g}
          </a>
        ))}
      </nav>
      {[...groups.entries()].map(([iface, entries]) => (
        <section aria-labelledby={`interface-${iface}`}>
          <h2 id={`interface-${iface}`}>{iface}</h2>
          <table>
            <TableHead columns={["Change", "Deprecated in", "Removal", `At ${version}`]} />
            <tbody>
              {entries.map((e) => {
                const state = stateAt(e, version);
                return (
                  <tr id={e.id}>
                    <td>
                      <a href={`#${e.id}`}>
                        <strong>{e.title}</strong>
                      </a>
                      <div>{e.change}</div>
                      {e.replacement ? <div class="muted">Instead: {e.replacement}</div> : null}
                    </td>
                    <td class="nowrap">{e.deprecatedIn ? `${e.deprecatedIn} (${milestoneDate(e.deprecatedIn)})` : "every served version"}</td>
                    <td class="nowrap">
                      {e.removedIn ?? "a later release"}
                      {e.date ? ` (${e.date})` : ""}
                    </td>
                    <td>
                      <span class={`badge ${state}`}>{STATE_TEXT[state]}</span>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </section>
      ))}
    </>,
  );
});

export default deprecations;
