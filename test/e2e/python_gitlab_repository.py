"""Reads a repository with python-gitlab (Debian's python3-gitlab) without cloning it:
project.files.get, files.raw, repository_tree (offset and keyset), branches.list and commits.list against the demo
project of `npm start`. Prints one JSON line of what it observed; test/e2e/python-gitlab-repository.test.ts
checks it. Usage: python_gitlab_repository.py <base URL>, with GITLAB_PAT in the environment."""
import json
import os
import sys

import gitlab

gl = gitlab.Gitlab(sys.argv[1], private_token=os.environ["GITLAB_PAT"])
project = gl.projects.get("demo/demo-app")
readme = project.files.get(file_path="README.md", ref=project.default_branch)
raw = project.files.raw(file_path="README.md", ref=project.default_branch)
tree = project.repository_tree(ref=project.default_branch, recursive=True, get_all=True)
# GitLab's keyset pagination of the tree: python-gitlab follows the Link rel="next" (page_token).
keyset_tree = project.repository_tree(ref=project.default_branch, recursive=True, pagination="keyset", per_page=1, get_all=True)
branches = project.branches.list(get_all=True)
main = project.branches.get(project.default_branch)
commits = project.commits.list(ref_name=project.default_branch, get_all=True)
commit = project.commits.get(commits[0].id)
try:
    project.files.get(file_path="no/such/file.md", ref=project.default_branch)
    missing = "found"
except gitlab.exceptions.GitlabGetError as e:
    missing = e.response_code
print(
    json.dumps(
        {
            "readme_text": readme.decode().decode("utf-8"),
            "readme_name": readme.file_name,
            "raw_equal": raw == readme.decode(),
            "tree": [[e["path"], e["type"]] for e in tree],
            "keyset_tree": [[e["path"], e["type"]] for e in keyset_tree],
            "branches": [b.name for b in branches],
            "main_default": main.default,
            "commit_titles": [c.title for c in commits],
            "commit_stats": commit.stats,
            "missing_status": missing,
        }
    )
)
