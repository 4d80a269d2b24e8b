"""The rater's requests with the hand-written SQL they used until 69cb0ca, beside the current ORM code, taking turns.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres .venv/bin/python bench/hand_sql_bench.py \\
        --cache-url redis://127.0.0.1:6379/13            # [--pairs 3] [--workers 3] [--no-write]

The last commit with the hand-written layer (annotator/services/annotation_rows.py: prepared statements, several
statements per round trip) is the parent of 69cb0ca. It is exported with `git archive` into a temporary folder
outside the repository (so this needs a checkout with that history), and its own bench/labeling_bench.py runs
from there with this virtualenv's Python: the report names every package whose installed version differs from
that commit's pins (none, when this was written: it pins a subset of the current packages, at the same
versions). The two take turns, --pairs times: the hand-written code, then the current one. Both run with
--no-write and the same --workers and --cache-url (a Redis database kept for benchmarks: each run empties it).

Scratch databases: the hand-written code's `taxonomist_lbench_hand` is built anew and dropped by every run (its
benchmark timed only one kind of submit on a reused database); the current code's `taxonomist_lbench` is built
by its first run and reused after (--reuse, which keeps it). The server medians of each run go to stdout and to
docs/benchmarks.md, section "Hand-written SQL beside the ORM".
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tarfile
import tempfile
from importlib import metadata
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import ROOT, machine, today, write_section

SECTION = "## Hand-written SQL beside the ORM"
HAND_WRITTEN = "69cb0ca^"  # 69cb0ca replaced the hand-written layer with ORM code
HAND_DB, ORM_DB = "taxonomist_lbench_hand", "taxonomist_lbench"
# The rows both benchmarks print, by the start of their label.
ROWS = [
    ("next", "GET next assignment"),
    ("save", "PUT save draft"),
    ("submit", "POST submit (API)"),
    ("open", "POST submit, the other rater"),
    ("completing", "POST submit that completes"),
    ("queue", "GET my queue page"),
    ("floor_get", "floor: GET"),
    ("floor_put", "floor: PUT"),
]
TARGETS = {"next": 10.0, "save": 10.0, "submit": 12.0, "queue": 15.0}


def server_medians(output: str) -> dict[str, float]:
    """The server median of each row of a labelling benchmark's table (its second column)."""
    medians = {}
    for line in output.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        for key, label in ROWS:
            if len(cells) > 1 and cells[0].startswith(label) and re.fullmatch(r"\d+(\.\d+)?", cells[1]):
                medians.setdefault(key, float(cells[1]))
    missing = [key for key, _ in ROWS if key not in medians]
    if missing:
        raise SystemExit(f"the benchmark printed no server median for {', '.join(missing)}:\n{output[-2000:]}")
    return medians


def export(commit: str, into: Path) -> Path:
    """The tree of `commit`, written into `into` by `git archive` (names checked: nothing lands outside)."""
    archive = into / "tree.tar"
    with archive.open("wb") as out:
        done = subprocess.run(["git", "archive", commit], cwd=ROOT, stdout=out, stderr=subprocess.PIPE, check=False)
    if done.returncode:
        raise SystemExit(f"git archive {commit} failed (it needs the repository's history): {done.stderr.decode()}")
    tree = into / "tree"
    with tarfile.open(archive) as tar:
        tar.extractall(tree, filter="data")
    archive.unlink()
    return tree


def pins_not_installed(requirements: str) -> list[str]:
    """The `name==version` pins of a requirements file that this environment does not have at that version."""
    differing = []
    for line in requirements.splitlines():
        match = re.match(r"([A-Za-z0-9_.-]+)==([^\s\\;]+)", line.strip())
        if not match:
            continue
        name, pinned = match.groups()
        try:
            installed = metadata.version(name)
        except metadata.PackageNotFoundError:
            installed = "not installed"
        if installed != pinned:
            differing.append(f"{name} {pinned} ({installed} here)")
    return differing


def run(tree: Path, args, *extra: str) -> dict[str, float]:
    command = [sys.executable, "bench/labeling_bench.py", "--no-write", "--workers", str(args.workers), *extra]
    if args.cache_url:
        command += ["--cache-url", args.cache_url]
    done = subprocess.run(command, cwd=tree, env=os.environ, capture_output=True, text=True, check=False)
    if done.returncode:
        raise SystemExit(f"{' '.join(command)} in {tree} failed:\n{done.stderr[-3000:]}")
    return server_medians(done.stdout)


def markdown(runs: list[tuple[str, dict[str, float]]], args, differing: list[str]) -> str:
    lines = [
        "Command (the scratch databases `taxonomist_lbench_hand` and `taxonomist_lbench`; see the script's help):",
        "",
        "```",
        "DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres .venv/bin/python bench/hand_sql_bench.py \\",
        "    --cache-url redis://127.0.0.1:6379/13",
        "```",
        "",
        "The rater's requests with the hand-written SQL they used until 69cb0ca (its parent commit, exported with "
        "`git archive`, running its own labelling benchmark) and with the current ORM code, taking turns on one "
        "machine, each on a study of 100,000 issues built the same way.",
        "",
        f"Run on {today()}, {machine()}; {args.pairs} pair{'s' if args.pairs != 1 else ''} taking turns, "
        f"gunicorn with {args.workers} workers"
        f"{', Redis cache' if args.cache_url else ''}, 100,000 issues. Server medians in ms (gunicorn's own measure).",
        "",
        "| run | code | next | save | submit (open / completing) | queue page | floor GET / PUT |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for number, (code, m) in enumerate(runs, 1):
        lines.append(
            f"| {number} | {code} | {m['next']:.1f} | {m['save']:.1f} | {m['submit']:.1f} ({m['open']:.1f} / "
            f"{m['completing']:.1f}) | {m['queue']:.1f} | {m['floor_get']:.1f} / {m['floor_put']:.1f} |"
        )
    lines.append("")
    lines.append(
        f"Packages pinned by {HAND_WRITTEN} at another version than the one both ran with: "
        + (", ".join(differing) if differing else "none")
        + "."
    )
    lines.append("")
    for key in TARGETS:
        hand = [m[key] for code, m in runs if code == "hand-written SQL"]
        orm = [m[key] for code, m in runs if code == "ORM"]
        ratios = [o / h for h, o in zip(hand, orm, strict=True)]
        lines.append(
            f"- {key}: hand-written {min(hand):.1f} to {max(hand):.1f} ms, ORM {min(orm):.1f} to {max(orm):.1f} ms "
            f"(ORM / hand-written in each pair {min(ratios):.1f} to {max(ratios):.1f}); target {TARGETS[key]:.0f} ms: "
            f"hand-written within it in {sum(h <= TARGETS[key] for h in hand)} of {len(hand)} runs, ORM in "
            f"{sum(o <= TARGETS[key] for o in orm)}"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pairs", type=int, default=3, help="turns of each (default 3)")
    parser.add_argument("--workers", type=int, default=3, help="gunicorn workers (default 3, as docker-compose)")
    parser.add_argument("--cache-url", default="", help="a scratch Redis database for the app's cache (emptied)")
    parser.add_argument("--no-write", action="store_true", help="do not update docs/benchmarks.md")
    args = parser.parse_args()
    if not os.environ.get("DATABASE_URL", "").startswith("postgres"):
        raise SystemExit("name the PostgreSQL server in DATABASE_URL (the scratch databases are made there)")

    runs = []
    with tempfile.TemporaryDirectory(prefix="taxonomist-hand-sql-") as scratch:
        tree = export(HAND_WRITTEN, Path(scratch))
        differing = pins_not_installed((tree / "requirements.txt").read_text(encoding="utf-8"))
        for _ in range(args.pairs):
            runs.append(("hand-written SQL", run(tree, args, "--db-name", HAND_DB)))
            print("hand-written SQL:", runs[-1][1], flush=True)
            runs.append(("ORM", run(ROOT, args, "--db-name", ORM_DB, "--reuse")))
            print("ORM:", runs[-1][1], flush=True)
    report = markdown(runs, args, differing)
    print(report)
    if not args.no_write:
        write_section(SECTION, report)
        print(f"\nwritten to {ROOT / 'docs' / 'benchmarks.md'}")


if __name__ == "__main__":
    main()
