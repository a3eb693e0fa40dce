"""Finds and revokes leaked tokens with python-gitlab (docs/credentials.md, /api/v4/admin/token).

Run with /usr/bin/python3 (Debian's python3-gitlab, which has no helper for this API, so it calls
gl.http_post and gl.http_delete as its documentation suggests for endpoints without one). The
service address is the first argument, the administrator's personal access token is in GITLAB_PAT.
Prints one JSON object of observations for test/e2e/python-gitlab-admin-token.test.ts.
"""
import datetime
import json
import os
import sys
import uuid

import gitlab

url = sys.argv[1]
gl = gitlab.Gitlab(url, private_token=os.environ["GITLAB_PAT"])
gl.auth()
out = {}
tag = uuid.uuid4().hex[:8]
expires = (datetime.date.today() + datetime.timedelta(days=30)).isoformat()


def identify(token):
    return gl.http_post("/admin/token", post_data={"token": token})


def revoke(token):
    return gl.http_delete("/admin/token", post_data={"token": token}).status_code


def status_of(call):
    try:
        call()
        return 200
    except gitlab.exceptions.GitlabHttpError as e:
        return e.response_code
    except gitlab.exceptions.GitlabAuthenticationError as e:
        return e.response_code


# A user's personal access token that leaked.
user = gl.users.create({"username": f"leaker-{tag}", "name": "Leaker", "email": f"leaker-{tag}@example.com", "password": f"long enough pass {tag}!", "skip_confirmation": True})
pat = user.personal_access_tokens.create({"name": "leaked", "scopes": ["api"], "expires_at": expires})
leaked = pat.token
out["pat_works_before"] = status_of(lambda: gitlab.Gitlab(url, private_token=leaked).auth())
found = identify(leaked)
out["pat_identified"] = {"user_id": found["user_id"], "expected_user_id": user.id, "name": found["name"], "revoked": found["revoked"]}
out["pat_revoke_status"] = revoke(leaked)
out["pat_works_after"] = status_of(lambda: gitlab.Gitlab(url, private_token=leaked).auth())
out["pat_identified_after"] = identify(leaked)["revoked"]

# A project's deploy token.
project = gl.projects.create({"name": f"leaky-{tag}", "visibility": "private"})
deploy = project.deploytokens.create({"name": "ci", "scopes": ["read_repository"]})
out["deploy_identified"] = identify(deploy.token)["name"]
out["deploy_revoke_status"] = revoke(deploy.token)
out["deploy_after"] = status_of(lambda: identify(deploy.token))

# An OAuth application's secret: reset, and the new one is shown to nobody.
app = gl.applications.create({"name": f"leaky-{tag}", "redirect_uri": "https://client.example/cb", "scopes": "read_user"})
out["secret_identified"] = identify(app.secret)["application_id"] == app.application_id
out["secret_reset_status"] = revoke(app.secret)
out["secret_after"] = status_of(lambda: identify(app.secret))

# A value no token has.
out["unknown"] = status_of(lambda: identify("glpat-" + "0" * 64))
print(json.dumps(out))
