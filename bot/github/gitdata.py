"""The GitHub gateway's check runs and Git Data API calls (the "Apply safe fixes"
commit). An edge.

`CheckRunsAndGitData` is the part of `bot.github.gateway.PyGithubGateway` that
reads and writes check runs and their annotations and builds a commit from blobs,
a tree and a ref update; the gateway inherits it (import it from there). The
small helpers both modules use to validate and quote what goes into a URL, and
to read GitHub's JSON, live here.
"""

from __future__ import annotations

import base64
import re
import urllib.parse
from collections.abc import Sequence
from typing import Any

from bot.github.calls import GatewayBase
from bot.github.http import GitHubHttp
from bot.github.types import Annotation, CheckRun, CheckRunInfo, GitHubError, TreeChange

MAX_CHECK_RUNS = 1_000  # per commit: a bound against runaway pagination
MAX_ANNOTATIONS_READ = 5_000  # per check run: a bound against runaway pagination
# a full commit, tree or blob id (SHA-1 or SHA-256)
SHA = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
_REPO = re.compile(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+")


def check_repo(repo: str) -> str:
    """`repo` when it is an `owner/name`; ValueError otherwise (it goes into URLs)."""
    if not _REPO.fullmatch(repo) or repo.split("/")[1] in (".", ".."):
        raise ValueError(f"not an owner/name repository: {repo!r}")
    return repo


def quoted(text: str, safe: str = "") -> str:
    """`text` percent-encoded for a URL path segment (`safe`: characters kept)."""
    return urllib.parse.quote(text, safe=safe)


def int_or_none(value: Any) -> int | None:
    """A JSON integer (never a bool), or None."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def text_at(data: Any, key: str) -> str:
    """The string at `data[key]` of a JSON object, or "" when absent."""
    value = data.get(key) if isinstance(data, dict) else None
    return value if isinstance(value, str) else ""


class CheckRunsAndGitData(GatewayBase):
    """Check runs and the Git Data API over the gateway's `GitHubHttp` (`_http`).
    As a `GatewayBase`, each of these methods runs the instance's call hooks."""

    _http: GitHubHttp

    def _get(self, repo: str | None, url: str, params: dict[str, Any] | None = None) -> Any:
        return self._http.get(repo, url, params)

    # ------------------------------------------------------------------ check runs

    def check_runs(self, repo: str, sha: str) -> list[CheckRunInfo]:
        repo = check_repo(repo)
        url = f"/repos/{repo}/commits/{quoted(sha)}/check-runs"
        runs = []
        for r in self._http.pages(repo, url, MAX_CHECK_RUNS, key="check_runs"):
            if not isinstance(r.get("name"), str):
                continue
            conclusion = r.get("conclusion")
            runs.append(
                CheckRunInfo(
                    name=r["name"],
                    status=text_at(r, "status") or "completed",
                    conclusion=conclusion if isinstance(conclusion, str) else None,
                    head_sha=text_at(r, "head_sha") or sha,
                    details_url=text_at(r, "details_url"),
                    id=int_or_none(r.get("id")),
                    external_id=text_at(r, "external_id"),
                    app_slug=text_at(r.get("app"), "slug"),
                )
            )
        return runs

    def check_run_annotations(self, repo: str, check_run_id: int) -> list[Annotation]:
        repo = check_repo(repo)
        url = f"/repos/{repo}/check-runs/{int(check_run_id)}/annotations"
        out = []
        for a in self._http.pages(repo, url, MAX_ANNOTATIONS_READ):
            start, end = int_or_none(a.get("start_line")), int_or_none(a.get("end_line"))
            if start is None or end is None:
                continue
            out.append(
                Annotation(
                    path=text_at(a, "path"),
                    start_line=start,
                    end_line=end,
                    annotation_level=text_at(a, "annotation_level"),
                    message=text_at(a, "message"),
                    title=text_at(a, "title"),
                    raw_details=text_at(a, "raw_details"),
                    start_column=int_or_none(a.get("start_column")),
                    end_column=int_or_none(a.get("end_column")),
                )
            )
        return out

    def create_check_run(self, repo: str, run: CheckRun) -> int:
        """`POST /check-runs`: a GitHub App's installation only (a personal token gets 403)."""
        repo = check_repo(repo)
        data = self._http.write(repo, "POST", f"/repos/{repo}/check-runs", run.to_json())
        return self._id(data, "check run")

    def update_check_run(self, repo: str, check_run_id: int, run: CheckRun) -> None:
        repo = check_repo(repo)
        body = run.to_json()
        body.pop("head_sha", None)  # not a field of an update
        url = f"/repos/{repo}/check-runs/{int(check_run_id)}"
        self._http.write(repo, "PATCH", url, body)

    # ------------------------------------------------------------------ git data (commits)

    def commit_tree(self, repo: str, sha: str) -> str:
        repo = check_repo(repo)
        data = self._get(repo, f"/repos/{repo}/git/commits/{quoted(sha)}")
        tree = data.get("tree") if isinstance(data, dict) else None
        value = tree.get("sha") if isinstance(tree, dict) else None
        if not isinstance(value, str):
            raise GitHubError(f"GET /repos/{repo}/git/commits/{sha}: no tree", status=0)
        return value

    def create_blob(self, repo: str, content: bytes) -> str:
        repo = check_repo(repo)
        body = {"content": base64.b64encode(content).decode("ascii"), "encoding": "base64"}
        return self._sha(self._http.write(repo, "POST", f"/repos/{repo}/git/blobs", body), "blob")

    def create_tree(self, repo: str, base_tree: str, changes: Sequence[TreeChange]) -> str:
        repo = check_repo(repo)
        entries = [{"path": c.path, "mode": c.mode, "type": "blob", "sha": c.sha} for c in changes]
        body = {"base_tree": base_tree, "tree": entries}
        return self._sha(self._http.write(repo, "POST", f"/repos/{repo}/git/trees", body), "tree")

    def create_commit(self, repo: str, message: str, tree: str, parents: Sequence[str]) -> str:
        """No author or committer: GitHub records the authenticated identity (the App's
        bot account) and the current time."""
        repo = check_repo(repo)
        body = {"message": message, "tree": tree, "parents": list(parents)}
        data = self._http.write(repo, "POST", f"/repos/{repo}/git/commits", body)
        return self._sha(data, "commit")

    def update_ref(self, repo: str, ref: str, sha: str) -> None:
        repo = check_repo(repo)
        url = f"/repos/{repo}/git/refs/{quoted(ref, '/')}"
        self._http.write(repo, "PATCH", url, {"sha": sha, "force": False})

    @staticmethod
    def _sha(data: Any, what: str) -> str:
        value = data.get("sha") if isinstance(data, dict) else None
        if not isinstance(value, str) or not SHA.fullmatch(value):
            raise GitHubError(f"created {what} has no sha", status=0)
        return value

    @staticmethod
    def _id(data: Any, what: str) -> int:
        value = data.get("id") if isinstance(data, dict) else None
        if not isinstance(value, int):
            raise GitHubError(f"created {what} has no id", status=0)
        return value
