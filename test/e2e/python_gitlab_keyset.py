"""Walks /api/v4 listings with python-gitlab's iterator in keyset mode (docs/rest-api.md, Keyset).

Run with /usr/bin/python3 (Debian's python3-gitlab). The service address is the first argument,
the administrator's personal access token is in GITLAB_PAT. The client follows the Link header's
rel="next" page by page; every walk is compared with the same listing read by offset pages.
Prints one JSON object of observations for test/e2e/python-gitlab-keyset.test.ts.
"""
import json
import os
import sys
import uuid

import gitlab

url = sys.argv[1]
gl = gitlab.Gitlab(url, private_token=os.environ["GITLAB_PAT"])
gl.auth()
out = {}

# Enough rows that one-row pages make several round trips.
tag = uuid.uuid4().hex[:8]
for i in range(3):
    gl.projects.create({"name": f"keyset-{tag}-{i}", "visibility": "private"})
    # Users and groups share one namespace of paths (docs/security.md, Namespaces): distinct names.
    gl.groups.create({"name": f"keyset-{tag}-{i}", "path": f"keyset-{tag}-{i}"})
    gl.users.create({"username": f"keyset-user-{tag}-{i}", "name": f"Keyset {i}", "email": f"keyset-user-{tag}-{i}@example.com", "password": f"long enough pass {tag} {i}!", "skip_confirmation": True})


def walk(manager, **kwargs):
    pages = manager.list(iterator=True, pagination="keyset", per_page=1, **kwargs)
    ids = [r.id for r in pages]
    return {"ids": ids, "total": pages.total}


def offset(manager, **kwargs):
    return [r.id for r in manager.list(get_all=True, per_page=100, **kwargs)]


def stable_walk(manager, **kwargs):
    """The keyset walk and an offset listing, compared over the rows that existed throughout: the
    server is shared with other files, which create and delete users, groups and projects meanwhile."""
    before = set(offset(manager, **kwargs))
    w = walk(manager, **kwargs)
    after = offset(manager, **kwargs)
    kept = before & set(after)
    return {"keyset": [i for i in w["ids"] if i in kept], "offset": [i for i in after if i in kept], "total": w["total"]}


for name, manager, kwargs in [
    ("projects", gl.projects, {"order_by": "id", "sort": "asc"}),
    ("projects_desc", gl.projects, {"order_by": "id", "sort": "desc"}),
    ("groups", gl.groups, {"order_by": "name", "sort": "asc"}),
    ("users", gl.users, {"order_by": "username", "sort": "asc"}),
    ("users_created", gl.users, {"order_by": "created_at", "sort": "desc"}),
]:
    out[name] = stable_walk(manager, **kwargs)

# Audit events (GitLab: order_by=id, sort=desc, a cursor): one user's, blocked and unblocked
# twice, so that other files' events on the shared server do not change the walk.
audited = gl.users.create({"username": f"keyset-audited-{tag}", "name": "Keyset audited", "email": f"keyset-audited-{tag}@example.com", "password": f"long enough pass {tag}!", "skip_confirmation": True})
for _ in range(2):
    audited.block()
    audited.unblock()
filters = {"entity_type": "User", "entity_id": audited.id}
w = walk(gl.audit_events, **filters)
out["audit_events"] = {"keyset": w["ids"], "offset": offset(gl.audit_events, **filters), "total": w["total"]}

try:
    list(gl.projects.list(iterator=True, pagination="keyset", order_by="name"))
    out["unsupported"] = "accepted"
except gitlab.exceptions.GitlabListError as e:
    out["unsupported"] = {"status": e.response_code, "message": str(e.error_message)}

print(json.dumps(out))
