"""Builders of import input in the shapes people bring: GitHub REST objects, `gh` output, CSV rows."""

import csv
import io
import json
from pathlib import Path


def rest_issue(number: int = 1, *, repo: str = "deepspeedai/DeepSpeed", comments: int | None = None, **extra) -> dict:
    """A GitHub REST issue object (snake_case), trimmed to the fields an import reads plus a few it keeps."""
    record = {
        "url": f"https://api.github.com/repos/{repo}/issues/{number}",
        "html_url": f"https://github.com/{repo}/issues/{number}",
        "comments_url": f"https://api.github.com/repos/{repo}/issues/{number}/comments",
        "id": 1000 + number,
        "number": number,
        "title": f"[BUG] ZeRO-3 hangs at step {number}",
        "body": f"**Describe the bug**\nTraining hangs after {number} steps.\n\n**ds_report output**\n```\ntorch\n```",
        "state": "closed",
        "state_reason": "completed",
        "user": {"login": f"user{number}", "id": number, "avatar_url": "https://avatars.example.org/u"},
        "labels": [{"id": 1, "name": "bug", "color": "d73a4a"}, {"id": 2, "name": "training", "color": "fff"}],
        "comments": 0,
        "created_at": "2023-03-01T10:00:00Z",
        "updated_at": "2023-03-02T10:00:00Z",
        "closed_at": "2023-03-03T10:00:00Z",
        "reactions": {"total_count": 2, "+1": 2},
    }
    if comments is not None:
        record["comments"] = comments
        record["comment_list"] = [rest_comment(number, i) for i in range(1, comments + 1)]
    record.update(extra)
    return record


def rest_comment(number: int, position: int, **extra) -> dict:
    comment = {
        "id": number * 100 + position,
        "html_url": f"https://github.com/deepspeedai/DeepSpeed/issues/{number}#issuecomment-{number * 100 + position}",
        "user": {"login": f"helper{position}"},
        "body": f"Comment {position}: try `export NCCL_DEBUG=INFO`.",
        "created_at": "2023-03-01T11:00:00Z",
        "updated_at": "2023-03-01T11:00:00Z",
    }
    comment.update(extra)
    return comment


def gh_issue(number: int = 1, *, repo: str = "NVIDIA/Megatron-LM", comments: int = 2, **extra) -> dict:
    """`gh issue list --json number,title,body,state,author,labels,createdAt,updatedAt,closedAt,url,comments`."""
    record = {
        "number": number,
        "title": f"NCCL timeout in pipeline stage {number}",
        "body": "### Describe the bug\nWatchdog caught collective operation timeout.",
        "state": "OPEN",
        "author": {"login": "octo", "name": "Octo Cat"},
        "labels": [{"name": "bug", "description": "", "color": "d73a4a", "id": "LA_1"}],
        "createdAt": "2024-05-01T08:00:00Z",
        "updatedAt": "2024-05-02T08:00:00Z",
        "closedAt": None,
        "url": f"https://github.com/{repo}/issues/{number}",
        "comments": [
            {
                "id": f"IC_kw{number}_{i}",
                "author": {"login": f"dev{i}"},
                "body": f"Reply {i}",
                "createdAt": "2024-05-01T09:00:00Z",
                "url": f"https://github.com/{repo}/issues/{number}#issuecomment-{i}",
            }
            for i in range(1, comments + 1)
        ],
    }
    record.update(extra)
    return record


def write_json(path: Path, records: list) -> Path:
    path.write_text(json.dumps(records, ensure_ascii=False, indent=1), encoding="utf-8")
    return path


def write_jsonl(path: Path, records: list) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


def write_csv(path: Path, rows: list[dict], header: list[str] | None = None) -> Path:
    header = header or list(rows[0])
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=header, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    path.write_text(buffer.getvalue(), encoding="utf-8")
    return path
