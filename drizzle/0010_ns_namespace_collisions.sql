-- Namespaces (docs/security.md "Namespaces"): before the next migration makes usernames, emails,
-- group full paths and project paths unique without regard to case, every existing collision is
-- resolved and reported instead of failing the migration. The oldest row keeps its name; each
-- later row is renamed to "<name>-collision-<id>" and one audit event
-- (namespace_path_renamed, GET /api/v4/audit_events) records what was renamed, from what, to what
-- and which row it collided with. A top-level group loses to a user of the same name (a username
-- is also a sign-in name) and to a reserved top-level path; a project loses to a group of the same
-- full path. Then triggers keep users, groups and projects in one namespace from now on.
CREATE TABLE `_ns_renames` (
	`kind` text NOT NULL,
	`id` integer NOT NULL,
	`field` text NOT NULL,
	`old_value` text NOT NULL,
	`new_value` text NOT NULL,
	`kept_kind` text,
	`kept_id` integer,
	`reason` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `_ns_old_projects` AS SELECT `id`, `path_with_namespace` FROM `projects`;
--> statement-breakpoint
-- Usernames and emails equal without regard to case: the oldest account keeps them.
INSERT INTO `_ns_renames`
SELECT 'user', u.id, 'username', u.username, u.username || '-collision-' || u.id, 'user',
  (SELECT min(o.id) FROM users o WHERE lower(o.username) = lower(u.username)), 'taken'
FROM users u WHERE EXISTS (SELECT 1 FROM users o WHERE lower(o.username) = lower(u.username) AND o.id < u.id);
--> statement-breakpoint
INSERT INTO `_ns_renames`
SELECT 'user', u.id, 'email', u.email,
  substr(u.email, 1, instr(u.email, '@') - 1) || '+collision-' || u.id || substr(u.email, instr(u.email, '@')), 'user',
  (SELECT min(o.id) FROM users o WHERE lower(o.email) = lower(u.email)), 'taken'
FROM users u WHERE EXISTS (SELECT 1 FROM users o WHERE lower(o.email) = lower(u.email) AND o.id < u.id);
--> statement-breakpoint
UPDATE users SET username = r.new_value FROM `_ns_renames` r WHERE r.kind = 'user' AND r.field = 'username' AND r.id = users.id;
--> statement-breakpoint
UPDATE users SET email = r.new_value FROM `_ns_renames` r WHERE r.kind = 'user' AND r.field = 'email' AND r.id = users.id;
--> statement-breakpoint
-- Top-level groups named after a user, or after one of the service's own top-level paths
-- (src/domain/namespace-paths.ts as of this migration).
INSERT INTO `_ns_renames`
SELECT 'group', g.id, 'path', g.path, g.path || '-collision-' || g.id, 'user', (SELECT min(u.id) FROM users u WHERE lower(u.username) = lower(g.path)), 'taken'
FROM groups g WHERE g.parent_id IS NULL AND EXISTS (SELECT 1 FROM users u WHERE lower(u.username) = lower(g.path));
--> statement-breakpoint
INSERT INTO `_ns_renames`
SELECT 'group', g.id, 'path', g.path, g.path || '-collision-' || g.id, NULL, NULL, 'reserved'
FROM groups g
WHERE g.parent_id IS NULL
  AND g.id NOT IN (SELECT id FROM `_ns_renames` WHERE kind = 'group')
  AND lower(g.path) IN ('-', '.well-known', 'admin', 'api', 'favicon.ico', 'help', 'jwt', 'oauth', 'profile', 'proto.plugin', 'users', 'v2',
    '404.html', '422.html', '500.html', '502.html', '503.html', 'apple-touch-icon.png', 'assets', 'dashboard', 'deploy.html', 'explore',
    'favicon.png', 'files', 'groups', 'health_check', 'import', 'login', 'projects', 'public', 'robots.txt', 's', 'search', 'sitemap',
    'sitemap.xml', 'sitemap.xml.gz', 'slash-command-logo.png', 'snippets', 'unsubscribes', 'uploads');
--> statement-breakpoint
-- Groups whose full paths are equal without regard to case: the oldest keeps it.
INSERT INTO `_ns_renames`
SELECT 'group', g.id, 'path', g.path, g.path || '-collision-' || g.id, 'group',
  (SELECT min(o.id) FROM groups o WHERE lower(o.full_path) = lower(g.full_path)), 'taken'
FROM groups g
WHERE g.id NOT IN (SELECT id FROM `_ns_renames` WHERE kind = 'group')
  AND EXISTS (SELECT 1 FROM groups o WHERE lower(o.full_path) = lower(g.full_path) AND o.id < g.id);
--> statement-breakpoint
UPDATE groups SET path = r.new_value FROM `_ns_renames` r WHERE r.kind = 'group' AND r.id = groups.id;
--> statement-breakpoint
-- Full paths follow the renamed paths down each renamed group's subtree.
WITH RECURSIVE tree(id, full_path) AS (
  SELECT id, path FROM groups WHERE parent_id IS NULL
  UNION ALL SELECT g.id, tree.full_path || '/' || g.path FROM groups g JOIN tree ON g.parent_id = tree.id
)
UPDATE groups SET full_path = tree.full_path FROM tree WHERE tree.id = groups.id AND groups.full_path <> tree.full_path;
--> statement-breakpoint
UPDATE projects SET path_with_namespace = n.full_path || '/' || projects.path
FROM (SELECT 'group' AS kind, id, full_path FROM groups UNION ALL SELECT 'user', id, username FROM users) n
WHERE n.kind = projects.namespace_kind AND n.id = projects.namespace_id
  AND projects.path_with_namespace <> n.full_path || '/' || projects.path
  AND EXISTS (SELECT 1 FROM `_ns_renames` r WHERE r.kind IN ('user', 'group') AND r.field IN ('username', 'path'));
--> statement-breakpoint
-- Projects whose paths are equal without regard to case in their (now distinct) namespaces, and
-- projects holding a group's full path: the oldest project, and the group, keep it.
INSERT INTO `_ns_renames`
SELECT 'project', p.id, 'path', p.path, p.path || '-collision-' || p.id, 'project',
  (SELECT min(o.id) FROM projects o WHERE lower(o.path_with_namespace) = lower(p.path_with_namespace)), 'taken'
FROM projects p WHERE EXISTS (SELECT 1 FROM projects o WHERE lower(o.path_with_namespace) = lower(p.path_with_namespace) AND o.id < p.id);
--> statement-breakpoint
INSERT INTO `_ns_renames`
SELECT 'project', p.id, 'path', p.path, p.path || '-collision-' || p.id, 'group',
  (SELECT min(g.id) FROM groups g WHERE lower(g.full_path) = lower(p.path_with_namespace)), 'taken'
FROM projects p
WHERE p.id NOT IN (SELECT id FROM `_ns_renames` WHERE kind = 'project')
  AND EXISTS (SELECT 1 FROM groups g WHERE lower(g.full_path) = lower(p.path_with_namespace));
--> statement-breakpoint
UPDATE projects
SET path = r.new_value,
  path_with_namespace = substr(projects.path_with_namespace, 1, length(projects.path_with_namespace) - length(projects.path)) || r.new_value
FROM `_ns_renames` r WHERE r.kind = 'project' AND r.id = projects.id;
--> statement-breakpoint
-- The container registry names a project's repositories by its lowercase path: they move with it.
-- Blob links are keyed by that name; they move only where no project still answers to the old one
-- (before this migration every registry name resolved to the oldest of the colliding projects).
UPDATE registry_repositories
SET path = lower(p.path_with_namespace) || substr(registry_repositories.path, length(o.path_with_namespace) + 1)
FROM projects p JOIN `_ns_old_projects` o ON o.id = p.id
WHERE registry_repositories.project_id = p.id AND o.path_with_namespace <> p.path_with_namespace;
--> statement-breakpoint
UPDATE registry_blob_links
SET repository_path = lower(p.path_with_namespace) || substr(registry_blob_links.repository_path, length(o.path_with_namespace) + 1)
FROM projects p JOIN `_ns_old_projects` o ON o.id = p.id
WHERE o.path_with_namespace <> p.path_with_namespace
  AND (registry_blob_links.repository_path = lower(o.path_with_namespace) OR substr(registry_blob_links.repository_path, 1, length(o.path_with_namespace) + 1) = lower(o.path_with_namespace) || '/')
  AND NOT EXISTS (SELECT 1 FROM projects q WHERE lower(q.path_with_namespace) = lower(o.path_with_namespace));
--> statement-breakpoint
INSERT INTO audit_events (action, author_id, entity_type, entity_id, details, ip_address, created_at)
SELECT 'namespace_path_renamed', NULL, kind, CAST(id AS TEXT),
  json_object('field', field, 'from', old_value, 'to', new_value, 'reason', reason, 'collided_with_type', kept_kind, 'collided_with_id', kept_id),
  NULL, unixepoch() * 1000
FROM `_ns_renames` ORDER BY rowid;
--> statement-breakpoint
DROP TABLE `_ns_renames`;
--> statement-breakpoint
DROP TABLE `_ns_old_projects`;
--> statement-breakpoint
-- One namespace from now on, settled by D1 itself so two concurrent creations cannot both win:
-- a username never equals a top-level group's path, and no group has a project's full path.
-- (The unique indexes on lower(...) of the next migration settle the rest.) The message makes
-- the refusal a unique violation to the code that maps it (src/db/namespace-paths.ts).
CREATE TRIGGER `namespace_user_insert` BEFORE INSERT ON `users`
WHEN EXISTS (SELECT 1 FROM groups WHERE lower(full_path) = lower(NEW.username))
BEGIN SELECT RAISE(ABORT, 'UNIQUE constraint failed: namespace path (users.username)'); END;
--> statement-breakpoint
CREATE TRIGGER `namespace_user_update` BEFORE UPDATE OF username ON `users`
WHEN lower(NEW.username) <> lower(OLD.username) AND EXISTS (SELECT 1 FROM groups WHERE lower(full_path) = lower(NEW.username))
BEGIN SELECT RAISE(ABORT, 'UNIQUE constraint failed: namespace path (users.username)'); END;
--> statement-breakpoint
CREATE TRIGGER `namespace_group_insert` BEFORE INSERT ON `groups`
WHEN EXISTS (SELECT 1 FROM users WHERE lower(username) = lower(NEW.full_path))
  OR EXISTS (SELECT 1 FROM projects WHERE lower(path_with_namespace) = lower(NEW.full_path))
BEGIN SELECT RAISE(ABORT, 'UNIQUE constraint failed: namespace path (groups.full_path)'); END;
--> statement-breakpoint
CREATE TRIGGER `namespace_group_update` BEFORE UPDATE OF full_path ON `groups`
WHEN lower(NEW.full_path) <> lower(OLD.full_path) AND (EXISTS (SELECT 1 FROM users WHERE lower(username) = lower(NEW.full_path))
  OR EXISTS (SELECT 1 FROM projects WHERE lower(path_with_namespace) = lower(NEW.full_path)))
BEGIN SELECT RAISE(ABORT, 'UNIQUE constraint failed: namespace path (groups.full_path)'); END;
--> statement-breakpoint
CREATE TRIGGER `namespace_project_insert` BEFORE INSERT ON `projects`
WHEN EXISTS (SELECT 1 FROM groups WHERE lower(full_path) = lower(NEW.path_with_namespace))
BEGIN SELECT RAISE(ABORT, 'UNIQUE constraint failed: namespace path (projects.path_with_namespace)'); END;
--> statement-breakpoint
CREATE TRIGGER `namespace_project_update` BEFORE UPDATE OF path_with_namespace ON `projects`
WHEN lower(NEW.path_with_namespace) <> lower(OLD.path_with_namespace) AND EXISTS (SELECT 1 FROM groups WHERE lower(full_path) = lower(NEW.path_with_namespace))
BEGIN SELECT RAISE(ABORT, 'UNIQUE constraint failed: namespace path (projects.path_with_namespace)'); END;
