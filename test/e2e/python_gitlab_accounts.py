"""Recovers an account with Debian's python-gitlab, as docs/operations.md's runbook does.

Run with /usr/bin/python3. The service address is the first argument, the administrator's personal
access token is in GITLAB_PAT and the temporary password in NEW_PASSWORD (never on the command
line). Creates a user, renames it and sets its password through `user.save()` (PUT /users/:id),
then tries disable_two_factor on it (not enabled: GitLab's 400). Then deletes two other users with
`gl.users.delete(id)` (DELETE /users/:id), one with hard_delete=True, and reads them back (404).
Prints one JSON object.
"""
import json
import os
import sys
import time

import gitlab

gl = gitlab.Gitlab(sys.argv[1], private_token=os.environ["GITLAB_PAT"])
username = "pyacct%d" % int(time.time() * 1000)
user = gl.users.create({"username": username, "name": "Before Rename", "email": username + "@example.com", "password": "an Initial password 1", "skip_confirmation": True})
user.name = "After Rename"
user.password = os.environ["NEW_PASSWORD"]
user.save()
out = {"id": user.id, "username": username, "name": gl.users.get(user.id).name}
try:
    gl.http_request("patch", "/users/%d/disable_two_factor" % user.id)
    out["disable_two_factor"] = "no error"
except gitlab.exceptions.GitlabHttpError as e:
    out["disable_two_factor"] = {"status": e.response_code, "message": str(e.error_message)}


def deleted(**kwargs):
    name = "pydel%d" % int(time.time() * 1000)
    doomed = gl.users.create({"username": name, "name": "Doomed", "email": name + "@example.com", "password": "an Initial password 1", "skip_confirmation": True})
    gl.users.delete(doomed.id, **kwargs)
    try:
        gl.users.get(doomed.id)
        return "still there"
    except gitlab.exceptions.GitlabGetError as e:
        return e.response_code


out["deleted"] = deleted()
out["hard_deleted"] = deleted(hard_delete=True)
print(json.dumps(out))
