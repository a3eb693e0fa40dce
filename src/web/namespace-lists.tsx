import type { GroupRow, ProjectRow } from "../db/projects";
import { formatDate } from "./page";

/** Lists of projects and groups, as the dashboard and explore pages show them. */

export function ProjectList({ projects, empty }: { projects: ProjectRow[]; empty: string }) {
  if (projects.length === 0) return <p class="muted">{empty}</p>;
  return (
    <ul class="rows" id="project-list">
      {projects.map((p) => (
        <li>
          <a href={`/${p.pathWithNamespace}`}>
            <bdi>{p.name}</bdi>
          </a>{" "}
          <span class="badge">{p.visibility}</span>
          <div class="muted id">{p.pathWithNamespace}</div>
          {p.description ? <div>{p.description}</div> : null}
          <div class="muted">Last activity {formatDate(p.lastActivityAt)}</div>
        </li>
      ))}
    </ul>
  );
}

export function GroupList({ groups, empty }: { groups: GroupRow[]; empty: string }) {
  if (groups.length === 0) return <p class="muted">{empty}</p>;
  return (
    <ul class="rows" id="group-list">
      {groups.map((g) => (
        <li>
          <a href={`/groups/${g.fullPath}`}>
            <bdi>
              <strong>{g.name}</strong>
            </bdi>
          </a>{" "}
          <span class="badge">{g.visibility}</span>
          <div class="muted id">{g.fullPath}</div>
          {g.description ? <div>{g.description}</div> : null}
        </li>
      ))}
    </ul>
  );
}

/** Previous / next links of a listing page (`?page=`). */
export function Pager({ path, page, hasNext }: { path: string; page: number; hasNext: boolean }) {
  if (page <= 1 && !hasNext) return null;
  return (
    <nav class="actions" aria-label="Pages">
      {page > 1 ? <a href={`${path}?page=${page - 1}`}>Previous page</a> : null}
      {hasNext ? <a href={`${path}?page=${page + 1}`}>Next page</a> : null}
    </nav>
  );
}

/** The page number of `?page=`, 1 to 1000. */
export function pageNumber(raw: string | undefined): number {
  return Math.max(1, Math.min(1000, Number.parseInt(raw ?? "1", 10) || 1));
}
