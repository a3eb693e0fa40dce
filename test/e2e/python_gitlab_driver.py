"""Drives /api/v4 with Debian's python-gitlab (issue 12, GitLab's parameter coercion).

Run with /usr/bin/python3 (Debian's interpreter, where python3-gitlab is installed). The service
address comes as the first argument and the personal access token in GITLAB_PAT (never on the
command line). Prints one JSON object of observations; test/e2e/python-gitlab.test.ts asserts on it.
"""
import datetime
import json
import os
import sys

import gitlab

url = sys.argv[1]
gl = gitlab.Gitlab(url, private_token=os.environ["GITLAB_PAT"], per_page=100)
out = {}

# Authentication with a PAT: /user.
gl.auth()
out["username"] = gl.user.username

# Users: booleans as Python spells them (True/False), list and get.
active = gl.users.list(active=True, get_all=True)
out["active_users"] = len(active)
out["user_get"] = gl.users.get(gl.user.id).username
# blocked=False is no filter in GitLab (only blocked=true narrows): every user, whatever other tests blocked.
# Other files create users meanwhile, so the lists are compared by id: every user of the second list
# that is not newer than the first list's newest must be in the first.
blocked_false = {u.id for u in gl.users.list(blocked=False, get_all=True)}
all_users = [u.id for u in gl.users.list(get_all=True)]
out["blocked_users_false"] = len(blocked_false)
out["all_users"] = len(all_users)
newest = max(blocked_false, default=max(all_users))
out["blocked_false_missing"] = sum(1 for i in all_users if i <= newest and i not in blocked_false)

# Projects: get by full path (URL-encoded by the client), boolean filters, pagination.
project = gl.projects.get("demo/demo-app")
out["project_path"] = project.path_with_namespace
out["projects_owned"] = [p.path_with_namespace for p in gl.projects.list(owned=True, get_all=True)]
page1 = gl.projects.list(per_page=1, page=1)
out["projects_page1"] = len(page1)
# Two projects of this run's own, so that the walk below has pages to turn on any server, alone or
# shared (projects.create: a JSON body, as python-gitlab sends it).
stamp = datetime.datetime.now().strftime("%H%M%S%f")
for i in (1, 2):
    gl.projects.create({"name": f"python-gitlab-walk-{stamp}-{i}"})
# The e2e server is shared: other files create projects meanwhile. In id order a new project comes
# after every page already walked, so the projects listed before and after the walk (the stable
# ones) must each be walked exactly once, and nothing walked may be outside both lists.
before = {p.id for p in gl.projects.list(get_all=True, order_by="id", sort="asc")}
iterated = [p.id for p in gl.projects.list(iterator=True, per_page=1, order_by="id", sort="asc")]
after = {p.id for p in gl.projects.list(get_all=True, order_by="id", sort="asc")}
stable = before & after
out["projects_stable"] = len(stable)
out["projects_stable_walked_once"] = sum(1 for i in iterated if i in stable) == len(stable) and stable <= set(iterated)
out["projects_iterated_repeats"] = len(iterated) - len(set(iterated))
out["projects_iterated_unknown"] = len(set(iterated) - (before | after))

# Runners: paused=True (python-gitlab sends "True"), paused=False, comma-separated tag_list.
# Other files register runners on the shared server meanwhile: each listed runner with its flag.
out["runners_paused"] = [[r.description, r.paused] for r in gl.runners_all.list(paused=True, get_all=True)]
out["runners_not_paused"] = len(gl.runners_all.list(paused=False, get_all=True))
out["runners_tagged"] = sorted(r.description for r in gl.runners_all.list(tag_list=["docker", "linux"], get_all=True))
out["runners_status"] = sorted({r.status for r in gl.runners_all.list(get_all=True)})

# Groups: a boolean filter.
out["groups_owned"] = len(gl.groups.list(owned=True, get_all=True))

# A refused boolean is GitLab's 400, raised as GitlabListError with the parameter named.
try:
    gl.runners_all.list(paused="maybe")
    out["bad_bool"] = "accepted"
except gitlab.exceptions.GitlabListError as e:
    out["bad_bool"] = {"status": e.response_code, "message": str(e.error_message)}

# Personal access tokens: an array parameter (scopes) in a JSON body, then a boolean filter.
user = gl.users.get(gl.user.id)
created = user.personal_access_tokens.create({"name": "python-gitlab", "scopes": ["read_api", "read_user"], "expires_at": (datetime.date.today() + datetime.timedelta(days=30)).isoformat()})
out["pat_scopes"] = sorted(created.scopes)
listed = gl.personal_access_tokens.list(revoked=False, get_all=True)
out["pat_listed"] = any(t.id == created.id for t in listed)

# An OAuth access token (docs/clients.md, python-gitlab): oauth_token= sends it as a Bearer token.
oauth = gitlab.Gitlab(url, oauth_token=os.environ["GITLAB_OAUTH_TOKEN"])
oauth.auth()
out["oauth_username"] = oauth.user.username

print(json.dumps(out))
