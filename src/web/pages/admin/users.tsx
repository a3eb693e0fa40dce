import { getDb } from "../../../db/client";
import { listUsers, type UserRow } from "../../../db/users";
import { TableHead } from "../../components";
import { Flash, formatDate, renderPage, takeFlash, type PageEnv } from "../../page";
import { pageApp } from "../../door";

/** /admin/users: every account, newest first, searchable by username, name or email (GitLab's admin list). */
const adminUsers = pageApp({ enter: "administrator" });
const PER_PAGE = 50;

export function StateBadge({ user }: { user: Pick<UserRow, "state" | "isAdmin"> }) {
  return (
    <>
      <span class={`badge state-${user.state}`}>{user.state}</span>
      {user.isAdmin ? <span class="badge">admin</span> : null}
    </>
  );
}

adminUsers.get("/admin/users", async (c) => {
  const search = (c.req.query("search") ?? "").trim().slice(0, 100);
  const page = Math.max(1, Math.min(1000, Number.parseInt(c.req.query("page") ?? "1", 10) || 1));
  const { rows, hasNext } = await listUsers(getDb(c.env.DB), {
    offset: (page - 1) * PER_PAGE,
    limit: PER_PAGE,
    orderBy: "id",
    sort: "desc",
    ...(search ? { search } : {}),
  });
  const link = (p: number) => `/admin/users?${new URLSearchParams({ ...(search ? { search } : {}), page: String(p) })}`;
  return renderPage(
    c,
    "Users · Admin area",
    <>
      <h1>Users</h1>
      <Flash kind="notice" message={takeFlash(c)} />
      <p class="actions">
        <a class="button" href="/admin/users/new">
          New user
        </a>
      </p>
      <form method="get" action="/admin/users" class="search" role="search">
        <label for="user_search">Search by username, name or email</label>
        <div class="actions">
          <input type="text" id="user_search" name="search" value={search} maxlength={100} />
          <button type="submit">Search</button>
        </div>
      </form>
      {rows.length === 0 ? (
        <p class="muted">{search ? "No user matches this search." : "No users."}</p>
      ) : (
        <table id="admin-users">
          <TableHead columns={["User", "Email", "State", "Created", "Last sign-in", "Actions"]} />
          <tbody>
            {rows.map((u) => (
              <tr>
                <td>
                  <a href={`/admin/users/${encodeURIComponent(u.username)}`}>
                    <bdi>{u.name}</bdi> @{u.username}
                  </a>
                </td>
                <td class="id">{u.email}</td>
                <td>
                  <StateBadge user={u} />
                </td>
                <td>{formatDate(u.createdAt)}</td>
                <td>{formatDate(u.lastSignInAt)}</td>
                <td>
                  <a href={`/admin/users/${encodeURIComponent(u.username)}/edit`} aria-label={`Edit @${u.username}`}>
                    Edit
                  </a>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <nav class="actions" aria-label="Pages">
        {page > 1 ? <a href={link(page - 1)}>Previous page</a> : null}
        {hasNext ? <a href={link(page + 1)}>Next page</a> : null}
      </nav>
    </>,
  );
});

export default adminUsers;
