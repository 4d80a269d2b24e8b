"""The demo issues shipped for the demo study: shape, consistency and the variety raters need to practise on.

Plain pytest over the JSON file: no database, no Django.
"""

import json
import re
from collections import Counter
from datetime import datetime
from pathlib import Path

import pytest

DEMO_FILE = Path(__file__).resolve().parents[2] / "annotator" / "demo" / "demo_issues.json"

REPOSITORIES = {("deepspeedai", "DeepSpeed"), ("NVIDIA", "Megatron-LM"), ("hpcaitech", "ColossalAI")}
ISSUE_URL = re.compile(r"^https://github\.com/(?P<owner>[^/]+)/(?P<name>[^/]+)/issues/(?P<number>\d+)$")
TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$")

# Text that the issue templates put into a body and that reporters often leave untouched.
TEMPLATE_PLACEHOLDERS = (
    "A clear and concise description of what the bug is.",
    "A clear and concise description of what the problem is.",
    "A clear and concise description of what you expected to happen.",
    "Ask a clear and concise question about Megatron-LM.",
    "If applicable, add screenshots to help explain your problem.",
    "If applicable, add the stack trace or logs from the time of the error.",
    "Add any other context about the problem here.",
    "Are you using a specific docker image that you can share?",
    "Please run `ds_report` to give us details about your setup.",
    "_No response_",
)

DS_REPORT_PLACEHOLDER = "Please run `ds_report` to give us details about your setup."

# Default labels of the three projects' templates, plus the process labels their trackers add.
KNOWN_LABELS = {
    "bug",
    "training",
    "inference",
    "compression",
    "deepspeed-chat",
    "enhancement",
    "question",
    "documentation",
    "stale",
    "community-request",
    "waiting-on-maintainers",
    "waiting-on-customer",
    "module: moe",
    "module: training",
    "module: distributed",
    "module: documentation",
    "module: multimodal",
}

ISSUE_FIELDS = {
    "id": int,
    "number": int,
    "title": str,
    "body": str,
    "state": str,
    "user": dict,
    "labels": list,
    "created_at": str,
    "updated_at": str,
    "html_url": str,
    "comments": int,
    "comment_list": list,
}
COMMENT_FIELDS = {"id": int, "user": dict, "body": str, "created_at": str, "updated_at": str, "html_url": str}


def _load() -> list[dict]:
    return json.loads(DEMO_FILE.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def records() -> list[dict]:
    return _load()


def _when(value: str) -> datetime:
    return datetime.strptime(value, "%Y-%m-%dT%H:%M:%SZ")


def _label_names(record: dict) -> set[str]:
    return {label["name"] for label in record["labels"]}


def _repo(record: dict) -> tuple[str, str]:
    match = ISSUE_URL.match(record["html_url"])
    assert match, f"not an issue URL: {record['html_url']}"
    return match["owner"], match["name"]


def _texts(record: dict) -> list[str]:
    return [record["title"], record["body"], *(comment["body"] for comment in record["comment_list"])]


def _fenced_block_lengths(text: str) -> list[int]:
    """Line counts of the fenced code blocks in a Markdown text."""
    lengths, inside, count = [], False, 0
    for line in text.split("\n"):
        if line.lstrip().startswith("```"):
            if inside:
                lengths.append(count)
            inside, count = not inside, 0
        elif inside:
            count += 1
    return lengths


def _where(record: dict) -> str:
    return record.get("html_url", f"record id {record.get('id')}")


def test_file_is_utf8_json_array_pretty_printed_with_indent_1():
    text = DEMO_FILE.read_bytes().decode("utf-8")
    data = json.loads(text)
    assert isinstance(data, list)
    assert text == json.dumps(data, indent=1, ensure_ascii=False) + "\n", "re-serialise with indent=1"


def test_file_size_suits_a_demo():
    size_kb = DEMO_FILE.stat().st_size / 1024
    assert 120 <= size_kb <= 300, f"{size_kb:.0f} KB"


def test_record_count(records):
    assert 28 <= len(records) <= 34


def test_every_issue_has_the_github_fields_with_their_types(records):
    problems = []
    for record in records:
        for field, kind in ISSUE_FIELDS.items():
            if not isinstance(record.get(field), kind) or isinstance(record.get(field), bool):
                problems.append(f"{_where(record)}: {field} should be {kind.__name__}, is {record.get(field)!r:.40}")
        if not record.get("title", "").strip() or not record.get("body", "").strip():
            problems.append(f"{_where(record)}: empty title or body")
        if not isinstance(record.get("user"), dict) or not record["user"].get("login"):
            problems.append(f"{_where(record)}: user.login missing")
        for label in record.get("labels", []):
            if not isinstance(label, dict) or not isinstance(label.get("name"), str):
                problems.append(f"{_where(record)}: label {label!r} is not {{name: str}}")
    assert not problems, "\n".join(problems)


def test_every_comment_has_the_github_fields_and_links_to_its_issue(records):
    problems = []
    for record in records:
        for comment in record["comment_list"]:
            for field, kind in COMMENT_FIELDS.items():
                if not isinstance(comment.get(field), kind):
                    problems.append(f"{_where(record)}: comment {field} should be {kind.__name__}")
            if not comment.get("user", {}).get("login") or not comment.get("body", "").strip():
                problems.append(f"{_where(record)}: comment {comment.get('id')} without author or body")
            if comment.get("html_url") != f"{record['html_url']}#issuecomment-{comment.get('id')}":
                problems.append(f"{_where(record)}: comment url {comment.get('html_url')}")
    assert not problems, "\n".join(problems)


def test_urls_name_one_of_the_three_repositories_and_the_issue_number(records):
    for record in records:
        match = ISSUE_URL.match(record["html_url"])
        assert match, f"{record['html_url']} is not a GitHub issue URL"
        assert (match["owner"], match["name"]) in REPOSITORIES, record["html_url"]
        assert int(match["number"]) == record["number"], record["html_url"]


def test_all_three_repositories_are_represented_with_deepspeed_the_largest(records):
    counts = Counter(_repo(record) for record in records)
    assert set(counts) == REPOSITORIES
    assert min(counts.values()) >= 5, counts
    assert counts.most_common(1)[0][0] == ("deepspeedai", "DeepSpeed"), counts


def test_numbers_are_unique_per_repository_and_ids_unique_everywhere(records):
    numbers = Counter((_repo(record), record["number"]) for record in records)
    assert [key for key, n in numbers.items() if n > 1] == []
    issue_ids = Counter(record["id"] for record in records)
    assert [key for key, n in issue_ids.items() if n > 1] == []
    comment_ids = Counter(comment["id"] for record in records for comment in record["comment_list"])
    assert [key for key, n in comment_ids.items() if n > 1] == []


def test_comment_count_equals_the_embedded_list_and_is_two_to_five(records):
    for record in records:
        assert record["comments"] == len(record["comment_list"]), _where(record)
        assert 2 <= record["comments"] <= 5, _where(record)


def test_state_and_closing_fields_agree(records):
    for record in records:
        assert record["state"] in {"open", "closed"}, _where(record)
        if record["state"] == "closed":
            assert record["closed_at"] is not None, _where(record)
            assert record["state_reason"] in {"completed", "not_planned"}, _where(record)
        else:
            assert record.get("closed_at") is None, _where(record)
            assert record.get("state_reason") is None, _where(record)
    assert {record["state"] for record in records} == {"open", "closed"}


def test_timestamps_are_iso_utc_in_2023_to_2025_and_in_order(records):
    for record in records:
        stamps = [record["created_at"], record["updated_at"]]
        stamps += [record["closed_at"]] if record["closed_at"] else []
        for comment in record["comment_list"]:
            stamps += [comment["created_at"], comment["updated_at"]]
        assert all(TIMESTAMP.match(stamp) for stamp in stamps), _where(record)
        created, updated = _when(record["created_at"]), _when(record["updated_at"])
        assert 2023 <= created.year <= 2025, _where(record)
        previous = created
        for comment in record["comment_list"]:
            posted = _when(comment["created_at"])
            assert previous < posted <= _when(comment["updated_at"]) <= updated, _where(record)
            previous = posted
        if record["closed_at"]:
            assert created <= _when(record["closed_at"]) <= updated, _where(record)


def test_labels_come_from_the_templates_and_tracker_vocabulary(records):
    unknown = {name for record in records for name in _label_names(record)} - KNOWN_LABELS
    assert unknown == set()


def test_bug_reports_follow_their_repository_template(records):
    headings = {
        ("deepspeedai", "DeepSpeed"): [
            "**Describe the bug**",
            "**To Reproduce**",
            "**Expected behavior**",
            "**ds_report output**",
            "**System info (please complete the following information):**",
        ],
        ("NVIDIA", "Megatron-LM"): [
            "**Describe the bug**",
            "**To Reproduce**",
            "**Stack trace/logs**",
            "**Environment (please complete the following information):**",
            "**Proposed fix**",
        ],
        ("hpcaitech", "ColossalAI"): ["### 🐛 Describe the bug", "### Environment"],
    }
    for record in records:
        if not record["title"].startswith("[BUG]"):
            continue
        missing = [heading for heading in headings[_repo(record)] if heading not in record["body"]]
        assert missing == [], f"{_where(record)} lacks {missing}"


def test_deepspeed_training_reports_carry_a_launcher_context_and_a_ds_report(records):
    """The report is fenced in the body, or the placeholder is left and the thread supplies it."""
    for record in records:
        if _repo(record) != ("deepspeedai", "DeepSpeed") or "training" not in _label_names(record):
            continue
        assert "**Launcher context**" in record["body"], _where(record)
        section = record["body"].split("**ds_report output**", 1)[1].split("**Screenshots**", 1)[0].strip()
        if section == DS_REPORT_PLACEHOLDER:
            section = "\n".join(comment["body"] for comment in record["comment_list"])
            assert "```" in section, f"{_where(record)}: nobody posted the ds_report"
        else:
            assert section.startswith("```"), f"{_where(record)}: ds_report not fenced"
        assert "DeepSpeed C++/CUDA extension op report" in section, _where(record)


def test_threads_show_the_usual_exchanges(records):
    def comments_where(predicate) -> list[str]:
        return [r["html_url"] for r in records for c in r["comment_list"] if predicate(r, c)]

    asked_for_report = comments_where(
        lambda r, c: (
            c["user"]["login"] != r["user"]["login"]
            and re.search(r"(?i)(please|could you|can you)[^.?]{0,60}`ds_report`", c["body"])
        )
    )
    workaround_confirmed = comments_where(
        lambda r, c: c["user"]["login"] == r["user"]["login"] and re.search(r"(?i)workaround", c["body"])
    )
    fixed_by = comments_where(lambda r, c: re.search(r"Fixed by #\d+", c["body"]))
    assert asked_for_report, "no maintainer asks for ds_report"
    assert workaround_confirmed, "no reporter confirms a workaround"
    assert len(fixed_by) >= 3, fixed_by


def test_megatron_environment_lists_commit_and_versions(records):
    for record in records:
        if _repo(record) == ("NVIDIA", "Megatron-LM") and record["title"].startswith("[BUG]"):
            for item in ("Megatron-LM commit ID", "PyTorch version", "CUDA version", "NCCL version"):
                assert item in record["body"], f"{_where(record)} lacks {item}"


def test_at_least_three_issues_keep_untouched_template_placeholders(records):
    with_placeholder = [r for r in records if any(text in r["body"] for text in TEMPLATE_PLACEHOLDERS)]
    assert len(with_placeholder) >= 3


def test_at_least_five_issues_hold_a_fenced_block_of_40_or_more_lines(records):
    long_logs = [r for r in records if max(_fenced_block_lengths(r["body"]), default=0) >= 40]
    assert len(long_logs) >= 5


def test_code_fences_are_balanced_in_every_body_and_comment(records):
    for record in records:
        for text in _texts(record):
            fences = sum(1 for line in text.split("\n") if line.lstrip().startswith("```"))
            assert fences % 2 == 0, _where(record)


def test_two_or_three_non_bugs_for_raters_to_exclude(records):
    non_bugs = [r for r in records if "bug" not in _label_names(r) and _label_names(r) & {"enhancement", "question"}]
    assert 2 <= len(non_bugs) <= 4, [r["html_url"] for r in non_bugs]


@pytest.mark.parametrize(
    ("theme", "pattern"),
    [
        ("NCCL timeout", r"Watchdog caught collective operation timeout"),
        ("hang at init_process_group", r"init_process_group"),
        ("wrong MASTER_ADDR", r"MASTER_ADDR|--master_addr"),
        ("OOM with ZeRO-3", r"(?is)(ZeRO-3|ZeRO stage 3).*out of memory|out of memory.*(ZeRO-3|ZeRO stage 3)"),
        ("CPU offload memory leak", r"offload_optimizer"),
        ("pipeline bubble", r"bubble"),
        ("slow all-reduce", r"busbw|bus bandwidth"),
        ("tensor-parallel inference inconsistency", r"tp_size|TP=2"),
        ("checkpoint shape mismatch", r"size mismatch for"),
        ("fused Adam build failure", r"Error building extension 'fused_adam'|FusedAdam"),
        ("CUDA version mismatch", r"(?i)cuda version .{0,40}(does not match|mismatches)"),
        ("loss NaN with fp16", r"loss: nan|loss=nan"),
        ("gradient accumulation", r"gradient_accumulation_steps|no_sync"),
    ],
)
def test_the_demo_covers_the_taxonomy(records, theme, pattern):
    hits = [r["html_url"] for r in records if re.search(pattern, "\n".join(_texts(r)))]
    assert hits, f"no demo issue about {theme}"


def test_text_names_no_path_of_the_machine_it_was_made_on():
    text = DEMO_FILE.read_text(encoding="utf-8")
    checkout = Path(__file__).resolve().parents[2]
    assert str(checkout) not in text
