"""A fake GitHub REST API on 127.0.0.1: real HTTP, the real JSON shapes, recorded requests.

Serves /repos/{o}/{r}, /repositories/{id}, the issues listing, the repository-wide comments
listing, issue timelines, pull requests with their files listing (at most 3,000 files, as GitHub
lists) and commits with their files (300 a page), with Link pagination, ETags (304 on If-None-Match), rate-limit
headers, and faults on demand: an exhausted rate limit, a secondary limit, 5xx answers, a
renamed repository (301). Used by the tests and by bench/github_bench.py.
"""

from __future__ import annotations

import bisect
import hashlib
import json
import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

BASE_TIME = datetime(2024, 1, 1, tzinfo=UTC)
PULL_FILES_CAP = 3000  # GitHub lists at most this many files of a pull request (and of a commit)
COMMIT_FILES_PER_PAGE = 300  # a commit's files come 300 a page, each page repeating the commit


def iso(value: datetime) -> str:
    return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass
class RecordedRequest:
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    status: int = 0


@dataclass
class FakeRepo:
    id: int
    owner: str
    name: str
    issues: dict[int, dict] = field(default_factory=dict)
    comments: dict[int, dict] = field(default_factory=dict)
    timelines: dict[int, list[dict]] = field(default_factory=dict)
    pulls: dict[int, dict] = field(default_factory=dict)
    pull_files: dict[int, list[dict]] = field(default_factory=dict)
    commits: dict[str, dict] = field(default_factory=dict)  # sha -> commit with all its files

    @property
    def full_name(self) -> str:
        return f"{self.owner}/{self.name}"


class FakeGitHub:
    """The state of the fake API; `start()` serves it on a random port of 127.0.0.1."""

    def __init__(self, *, rate_limit: int = 5000):
        self.lock = threading.Lock()
        self.repos: dict[str, FakeRepo] = {}
        self.renamed: dict[str, str] = {}  # old full name (lower) -> new full name
        self.requests: list[RecordedRequest] = []
        self.rate_limit = rate_limit
        self.rate_remaining = rate_limit
        self.faults: dict[int, str] = {}  # request ordinal (1-based) -> "rate_limit" | "secondary" | "502" ...
        self.clock = BASE_TIME
        self._ids = iter(range(1_000_000, 10**9))
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self.base_url = ""

    # -- data -------------------------------------------------------------------------------

    def tick(self, seconds: int = 1) -> datetime:
        self.clock += timedelta(seconds=seconds)
        return self.clock

    def add_repo(self, full_name: str) -> FakeRepo:
        owner, name = full_name.split("/")
        repo = FakeRepo(id=next(self._ids), owner=owner, name=name)
        self.repos[full_name.lower()] = repo
        return repo

    def repo(self, full_name: str) -> FakeRepo:
        return self.repos[full_name.lower()]

    def rename(self, old: str, new: str) -> None:
        repo = self.repos.pop(old.lower())
        repo.owner, repo.name = new.split("/")
        self.repos[new.lower()] = repo
        self.renamed[old.lower()] = new
        for number, issue in repo.issues.items():
            issue.update(self._issue_urls(repo, number))

    def _issue_urls(self, repo: FakeRepo, number: int) -> dict:
        return {
            "url": f"{self.base_url}/repos/{repo.full_name}/issues/{number}",
            "html_url": f"https://github.com/{repo.full_name}/issues/{number}",
        }

    def add_issue(self, full_name: str, *, pull: bool = False, state: str = "open", **fields: Any) -> dict:
        repo = self.repo(full_name)
        number = len(repo.issues) + 1
        at = iso(self.tick())
        issue = {
            "id": next(self._ids),
            "node_id": f"I_{number}",
            "number": number,
            "title": f"Issue {number} of {repo.name}",
            "body": f"Body of issue {number}",
            "user": {"login": f"user{number % 7}", "id": 100 + number % 7},
            "labels": [{"name": "bug", "color": "d73a4a"}] if number % 2 else [],
            "state": state,
            "state_reason": "completed" if state == "closed" else None,
            "comments": 0,
            "created_at": at,
            "updated_at": at,
            "closed_at": at if state == "closed" else None,
            "author_association": "NONE",
            **self._issue_urls(repo, number),
        }
        if pull:
            issue["pull_request"] = {
                "url": f"{self.base_url}/repos/{repo.full_name}/pulls/{number}",
                "html_url": f"https://github.com/{repo.full_name}/pull/{number}",
            }
        issue.update(fields)
        repo.issues[number] = issue
        return issue

    def update_issue(self, full_name: str, number: int, **fields: Any) -> dict:
        issue = self.repo(full_name).issues[number]
        issue.update(fields, updated_at=iso(self.tick()))
        return issue

    def close_issue(self, full_name: str, number: int) -> dict:
        """Close an issue now (its update time moves, as on GitHub)."""
        at = iso(self.tick())
        return self.update_issue(full_name, number, state="closed", state_reason="completed", closed_at=at)

    def add_comment(self, full_name: str, number: int, body: str = "") -> dict:
        repo = self.repo(full_name)
        at = iso(self.tick())
        comment_id = next(self._ids)
        comment = {
            "id": comment_id,
            "node_id": f"IC_{comment_id}",
            "html_url": f"https://github.com/{repo.full_name}/issues/{number}#issuecomment-{comment_id}",
            "issue_url": f"{self.base_url}/repos/{repo.full_name}/issues/{number}",
            "user": {"login": "commenter", "id": 7},
            "body": body or f"Comment {comment_id} on #{number}",
            "created_at": at,
            "updated_at": at,
            "author_association": "CONTRIBUTOR",
        }
        repo.comments[comment_id] = comment
        issue = repo.issues[number]
        issue["comments"] += 1
        issue["updated_at"] = at
        return comment

    def add_fix(
        self, full_name: str, number: int, *, pull_number: int, sha: str | None, merged: bool = True, files: int = 3
    ) -> None:
        """A pull request that cross-references the issue and (unless sha is None) the commit that closed it,
        both served too."""
        repo = self.repo(full_name)
        if pull_number not in repo.pulls:
            self.add_pull(full_name, pull_number, files=files, merged=merged)
        if sha is not None and sha not in repo.commits:
            self.add_commit(full_name, sha, files=min(files, 2))
        repo.timelines.setdefault(number, []).extend(
            [
                {"event": "labeled", "label": {"name": "bug", "color": "d73a4a"}},
                {
                    "event": "cross-referenced",
                    "source": {
                        "type": "issue",
                        "issue": {
                            "number": pull_number,
                            "title": f"Fix #{number}",
                            "html_url": f"https://github.com/{repo.full_name}/pull/{pull_number}",
                            "pull_request": {
                                "url": f"{self.base_url}/repos/{repo.full_name}/pulls/{pull_number}",
                                "html_url": f"https://github.com/{repo.full_name}/pull/{pull_number}",
                                "merged_at": iso(self.clock) if merged else None,
                            },
                        },
                    },
                },
            ]
        )
        if sha is not None:
            repo.timelines[number].append(
                {
                    "event": "closed",
                    "commit_id": sha,
                    "commit_url": f"{self.base_url}/repos/{repo.full_name}/commits/{sha}",
                }
            )

    @staticmethod
    def file_json(repo: FakeRepo, ref: str, path: str, *, additions: int, deletions: int, **fields: Any) -> dict:
        """One changed file as GitHub lists it (pull request files and a commit's files share the shape)."""
        blob = hashlib.sha1(f"{ref}:{path}".encode()).hexdigest()  # noqa: S324
        return {
            "sha": blob,
            "filename": path,
            "status": "modified",
            "additions": additions,
            "deletions": deletions,
            "changes": additions + deletions,
            "blob_url": f"https://github.com/{repo.full_name}/blob/{ref}/{path}",
            "raw_url": f"https://github.com/{repo.full_name}/raw/{ref}/{path}",
            "contents_url": f"https://api.github.com/repos/{repo.full_name}/contents/{path}?ref={ref}",
            "patch": "@@ -1,2 +1,3 @@\n-old\n+new",
            **fields,
        }

    def add_pull(self, full_name: str, number: int, *, files: int = 3, merged: bool = True, **fields: Any) -> dict:
        """A pull request with `files` changed files under deepspeed/runtime/ (2 additions, 1 deletion each)."""
        repo = self.repo(full_name)
        created = iso(self.tick())
        merged_at = iso(self.tick(3600)) if merged else None
        head = hashlib.sha1(f"{full_name}#{number}".encode()).hexdigest()  # noqa: S324
        changed = [
            self.file_json(repo, head, f"deepspeed/runtime/module_{number}_{i}.py", additions=2, deletions=1)
            for i in range(files)
        ]
        pull = {
            "url": f"{self.base_url}/repos/{repo.full_name}/pulls/{number}",
            "id": next(self._ids),
            "node_id": f"PR_{number}",
            "html_url": f"https://github.com/{repo.full_name}/pull/{number}",
            "diff_url": f"https://github.com/{repo.full_name}/pull/{number}.diff",
            "issue_url": f"{self.base_url}/repos/{repo.full_name}/issues/{number}",
            "number": number,
            "state": "closed" if merged else "open",
            "locked": False,
            "title": f"Fix in pull request {number}",
            "user": {"login": "fixer", "id": 9},
            "body": "Fixes the bug.",
            "created_at": created,
            "updated_at": merged_at or created,
            "closed_at": merged_at,
            "merged_at": merged_at,
            "merge_commit_sha": head,
            "draft": False,
            "head": {"ref": f"fix-{number}", "sha": head},
            "base": {"ref": "master", "sha": "0" * 40},
            "author_association": "CONTRIBUTOR",
            "merged": merged,
            "mergeable": None,
            "comments": 2,
            "review_comments": 1,
            "commits": 1,
            "additions": 2 * files,
            "deletions": files,
            "changed_files": files,
            **fields,
        }
        repo.pulls[number] = pull
        repo.pull_files[number] = changed
        return pull

    def add_commit(self, full_name: str, sha: str, *, files: int = 2, **fields: Any) -> dict:
        repo = self.repo(full_name)
        at = iso(self.tick())
        changed = [
            self.file_json(repo, sha, f"deepspeed/runtime/commit_{sha[:7]}_{i}.py", additions=3, deletions=1)
            for i in range(files)
        ]
        person = {"name": "Fixer", "email": "fixer@example.org", "date": at}
        commit = {
            "sha": sha,
            "node_id": f"C_{sha}",
            "url": f"{self.base_url}/repos/{repo.full_name}/commits/{sha}",
            "html_url": f"https://github.com/{repo.full_name}/commit/{sha}",
            "commit": {"author": person, "committer": person, "message": "Fix the bug", "comment_count": 0},
            "author": {"login": "fixer", "id": 9},
            "committer": {"login": "web-flow", "id": 19864447},
            "parents": [{"sha": "0" * 40}],
            "stats": {"additions": 3 * files, "deletions": files, "total": 4 * files},
            "files": changed,
            **fields,
        }
        repo.commits[sha] = commit
        return commit

    # -- observations -----------------------------------------------------------------------

    def requests_to(self, suffix: str) -> list[RecordedRequest]:
        return [r for r in self.requests if r.path.endswith(suffix)]

    # -- serving ----------------------------------------------------------------------------

    def start(self) -> FakeGitHub:
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._server.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server:
            self._server.shutdown()
            self._server.server_close()

    def handle(self, path: str, query: dict[str, str], headers: dict[str, str]) -> tuple[int, dict, Any]:
        with self.lock:
            recorded = RecordedRequest(path=path, query=query, headers=headers)
            self.requests.append(recorded)
            status, extra, body = self._answer(len(self.requests), path, query, headers)
            recorded.status = status
            return status, extra, body

    def _rate_headers(self, reset_in: int = 3600) -> dict:
        return {
            "X-RateLimit-Limit": str(self.rate_limit),
            "X-RateLimit-Remaining": str(self.rate_remaining),
            "X-RateLimit-Reset": str(int(time.time()) + reset_in),
            "X-RateLimit-Resource": "core",
        }

    def _answer(self, ordinal: int, path: str, query: dict, headers: dict) -> tuple[int, dict, Any]:
        fault = self.faults.pop(ordinal, None)
        if fault == "rate_limit":
            remaining, self.rate_remaining = self.rate_remaining, 0
            answer = (403, self._rate_headers(reset_in=1), {"message": "API rate limit exceeded for 127.0.0.1."})
            self.rate_remaining = remaining
            return answer
        if fault == "secondary":
            return 403, {"Retry-After": "1"}, {"message": "You have exceeded a secondary rate limit."}
        if fault == "superscript_retry_after":  # "²" is a digit to str.isdigit, not a number to int()
            return 403, {"Retry-After": "²"}, {"message": "You have exceeded a secondary rate limit."}
        if fault == "superscript_reset":
            headers = {**self._rate_headers(), "X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "²"}
            return 403, headers, {"message": "API rate limit exceeded for 127.0.0.1."}
        if fault and fault.isdigit():
            return int(fault), {}, {"message": "Server Error"}
        parts = path.strip("/").split("/")
        if parts[:1] == ["repos"] and len(parts) >= 3:
            full = f"{parts[1]}/{parts[2]}".lower()
            if full in self.renamed and full not in self.repos:
                location = "/".join(["", "repos", self.renamed[full], *parts[3:]])
                if query:
                    location += "?" + urlencode(query)
                return 301, {"Location": self.base_url + location}, {"message": "Moved Permanently"}
            repo = self.repos.get(full)
            if repo is None:
                return 404, {}, {"message": "Not Found"}
            return self._conditional(headers, *self._route(repo, parts[3:], query))
        if parts[:1] == ["repositories"] and len(parts) == 2:
            for repo in self.repos.values():
                if str(repo.id) == parts[1]:
                    return self._conditional(headers, 200, {}, self._repo_json(repo))
        return 404, {}, {"message": "Not Found"}

    def _conditional(self, headers: dict, status: int, extra: dict, body: Any) -> tuple[int, dict, Any]:
        if status != 200:
            return status, extra, body
        etag = 'W/"' + hashlib.sha1(json.dumps(body, sort_keys=True).encode()).hexdigest() + '"'  # noqa: S324
        if headers.get("if-none-match") == etag:
            return 304, {"ETag": etag, **self._rate_headers()}, None  # GitHub does not count 304s
        self.rate_remaining = max(0, self.rate_remaining - 1)
        return status, {"ETag": etag, **extra, **self._rate_headers()}, body

    def _repo_json(self, repo: FakeRepo) -> dict:
        return {
            "id": repo.id,
            "name": repo.name,
            "full_name": repo.full_name,
            "owner": {"login": repo.owner},
            "html_url": f"https://github.com/{repo.full_name}",
        }

    def _route(self, repo: FakeRepo, rest: list[str], query: dict) -> tuple[int, dict, Any]:
        if not rest:
            return 200, {}, self._repo_json(repo)
        if rest == ["issues"]:
            state = query.get("state", "open")
            items = [i for i in repo.issues.values() if state == "all" or i["state"] == state]
            return self._listing(f"/repos/{repo.full_name}/issues", items, query)
        if rest == ["issues", "comments"]:
            return self._listing(f"/repos/{repo.full_name}/issues/comments", list(repo.comments.values()), query)
        if len(rest) == 3 and rest[0] == "issues" and rest[2] == "timeline" and rest[1].isdigit():
            if int(rest[1]) not in repo.issues:
                return 404, {}, {"message": "Not Found"}
            events = repo.timelines.get(int(rest[1]), [])
            return self._listing(f"/repos/{repo.full_name}/issues/{rest[1]}/timeline", events, query, sort=False)
        if len(rest) in (2, 3) and rest[0] == "pulls" and rest[1].isdigit():
            number = int(rest[1])
            if number not in repo.pulls or rest[2:] not in ([], ["files"]):
                return 404, {}, {"message": "Not Found"}
            if not rest[2:]:
                return 200, {}, repo.pulls[number]
            files = repo.pull_files[number][:PULL_FILES_CAP]
            return self._listing(f"/repos/{repo.full_name}/pulls/{number}/files", files, query, sort=False)
        if len(rest) == 2 and rest[0] == "commits":
            commit = repo.commits.get(rest[1])
            return self._commit_page(repo, commit, query) if commit else (404, {}, {"message": "Not Found"})
        return 404, {}, {"message": "Not Found"}

    def _commit_page(self, repo: FakeRepo, commit: dict, query: dict) -> tuple[int, dict, Any]:
        """One page of a commit: the commit itself with its files from this page (GitHub ignores per_page)."""
        files = commit["files"][:PULL_FILES_CAP]
        page = int(query.get("page", 1))
        last = max(1, -(-len(files) // COMMIT_FILES_PER_PAGE))
        path = f"/repos/{repo.full_name}/commits/{commit['sha']}"
        links = [
            f'<{self.base_url}{path}?{urlencode({**query, "page": number})}>; rel="{rel}"'
            for rel, number in (("next", page + 1), ("last", last))
            if page < last
        ]
        body = {**commit, "files": files[(page - 1) * COMMIT_FILES_PER_PAGE : page * COMMIT_FILES_PER_PAGE]}
        return 200, ({"Link": ", ".join(links)} if links else {}), body

    def _listing(self, path: str, items: list[dict], query: dict, sort: bool = True) -> tuple[int, dict, Any]:
        if sort:
            items.sort(key=lambda item: (item["updated_at"], item["id"]))
            if since := query.get("since"):
                items = items[bisect.bisect_left([i["updated_at"] for i in items], since) :]
            if query.get("direction", "desc") == "desc":
                items.reverse()
        per_page = min(int(query.get("per_page", 30)), 100)
        page = int(query.get("page", 1))
        last = max(1, -(-len(items) // per_page))
        links = []
        for rel, number in (("next", page + 1), ("last", last)):
            if page < last:
                links.append(f'<{self.base_url}{path}?{urlencode({**query, "page": number})}>; rel="{rel}"')
        extra = {"Link": ", ".join(links)} if links else {}
        return 200, extra, items[(page - 1) * per_page : page * per_page]


def _handler_for(fake: FakeGitHub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # Headers and body leave in one write: two small writes meet the client's delayed ACK (40 ms each).
        wbufsize = 1 << 16

        def do_GET(self) -> None:
            parts = urlsplit(self.path)
            query = {key: values[-1] for key, values in parse_qs(parts.query).items()}
            headers = {key.lower(): value for key, value in self.headers.items()}
            status, extra, body = fake.handle(parts.path, query, headers)
            payload = b"" if status == 304 or body is None else json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(len(payload)))
            for key, value in extra.items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, format: str, *args: Any) -> None:  # quiet: tests read fake.requests instead
            pass

    return Handler
