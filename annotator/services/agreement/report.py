"""The cached agreement report of a study, and its flat tables for CSV and the command line.

The report is cached (Django cache) under the study, the filters and the study's labels version, so
any new or changed annotation or resolution makes a fresh key: nothing is ever invalidated by hand,
and a page view on unchanged labels costs one aggregate query plus a cache read.
"""

import hashlib
from collections.abc import Iterator
from typing import Any

from django.core.cache import cache
from django.utils import timezone

from annotator.models import Study
from annotator.selectors.agreement import labels_version, study_labels
from core.errors import DomainError

from .compute import build_report

CACHE_SECONDS = 7 * 24 * 3600
FORMAT = 2  # bump when the report's shape changes, so old cache entries are not read


def parse_pair(text: str | None) -> tuple[int, int] | None:
    """ "12-15" -> (12, 15): a pair of rater ids, in either order."""
    if not text:
        return None
    try:
        a, b = (int(part) for part in str(text).split("-"))
    except ValueError:
        raise DomainError(
            f"A rater pair is written as two rater ids, e.g. 12-15; got '{text}'.", field="pair"
        ) from None
    if a == b:
        raise DomainError("A rater pair needs two different raters.", field="pair")
    return (min(a, b), max(a, b))


def _keys(study: Study, version: str, round_number, pair, level) -> tuple[str, str]:
    digest = hashlib.sha256(f"{version}|{round_number}|{pair}|{level}".encode()).hexdigest()[:32]
    base = f"agreement:{FORMAT}:{study.pk}:{digest}"
    return f"{base}:report", f"{base}:cells"


def _labels(study: Study, version: str):
    """The study's labels, read once per study object and labels version (a request's reports share them)."""
    memo = study.__dict__.setdefault("_agreement_labels", {})
    if version not in memo:
        memo.clear()
        memo[version] = study_labels(study=study)
    return memo[version]


def _compute(study: Study, version: str, round_number, pair, level) -> tuple[dict, dict]:
    report, cells = build_report(_labels(study, version), round_number=round_number, pair=pair, level=level)
    report["labels_version"] = version
    report["computed_at"] = timezone.now().isoformat()
    report_key, cells_key = _keys(study, version, round_number, pair, level)
    cache.set_many({report_key: report, cells_key: cells}, CACHE_SECONDS)
    return report, cells


def _check_filters(report: dict, round_number, pair, level) -> None:
    rounds = [r["number"] for r in report["rounds"]]
    if round_number is not None and round_number not in rounds:
        shown = ", ".join(map(str, rounds)) or "none yet"
        raise DomainError(f"This study has no round {round_number}; its rounds are: {shown}.", field="round")
    if pair is not None and not report["raters"]:
        raise DomainError(
            f"Raters {pair[0]} and {pair[1]} have no submitted labels in common in this study.", field="pair"
        )
    if level is not None and level < 1:
        raise DomainError("Taxonomy levels are numbered from 1 (the top of the tree).", field="level")


def report_cache_key(*, study: Study, version: str, round_number=None, pair=None, level=None) -> str:
    """The cache key of the report for these filters (pages cache what they render from it next to it)."""
    return _keys(study, version, round_number, pair, level)[0]


def agreement_report(
    *,
    study: Study,
    round_number: int | None = None,
    pair: tuple[int, int] | None = None,
    level: int | None = None,
    version: str | None = None,
) -> dict[str, Any]:
    """The study's agreement report for the filters, from the cache when its labels have not changed.

    ``version`` (from ``labels_version``) saves its query when the caller asked for it already.
    """
    version = version or labels_version(study=study)
    report_key, _ = _keys(study, version, round_number, pair, level)
    report = cache.get(report_key)
    if report is None:
        report, _ = _compute(study, version, round_number, pair, level)
    _check_filters(report, round_number, pair, level)
    return report


def agreement_cell(
    *,
    study: Study,
    dimension: str,
    row: int,
    col: int,
    round_number: int | None = None,
    pair: tuple[int, int] | None = None,
    level: int | None = None,
) -> tuple[dict, list[int]]:
    """(the dimension's part of the report, the study issue ids in one confusion-matrix cell)."""
    version = labels_version(study=study)
    report_key, cells_key = _keys(study, version, round_number, pair, level)
    found = cache.get_many([report_key, cells_key])
    if len(found) < 2:
        report, cells = _compute(study, version, round_number, pair, level)
    else:
        report, cells = found[report_key], found[cells_key]
    _check_filters(report, round_number, pair, level)
    part = next((d for d in report["dimensions"] if d["key"] == dimension), None)
    if part is None:
        raise DomainError(f"This study does not label the dimension '{dimension}'.", field="dimension")
    categories = part["confusion"]["categories"]
    if not (0 <= row < len(categories) and 0 <= col < len(categories)):
        raise DomainError("That cell is not in the confusion matrix; reload the agreement page.", field="cell")
    return part, cells.get(f"{dimension}:{row}-{col}", [])


# kappa_low / kappa_high: the 95% Wald interval clipped to kappa's range [-1, 1]; kappa_ci_clipped is true when
# an end was clipped, false when not, empty where there is no interval.
TABLE_COLUMNS = [
    "view",
    "dimension",
    "level",
    "pair",
    "rater",
    "n",
    "percent_agreement",
    "kappa",
    "kappa_low",
    "kappa_high",
    "kappa_ci_clipped",
    "alpha",
    "ac1",
    "band",
    "undefined",
]


def _flat(view: str, dimension: str, level: str, pair: str, rater: str, row: dict) -> list:
    return [
        view,
        dimension,
        level,
        pair,
        rater,
        row["n"],
        row["percent"],
        row["kappa"],
        row["low"],
        row["high"],
        row.get("ci_clipped"),
        row["alpha"],
        row["ac1"],
        row["band"],
        row["undefined"],
    ]


def report_rows(report: dict, *, by_level: bool = True, by_pair: bool = True, after: bool = True) -> Iterator[list]:
    """The report as rows under TABLE_COLUMNS: one "overall" row per dimension, then the views asked for."""
    names = {r["id"]: r["name"] for r in report["raters"]}
    for d in report["dimensions"]:
        yield _flat("overall", d["name"], d["detail_level_name"], "", "", d["summary"])
    if by_level:
        for d in report["dimensions"]:
            for row in d["levels"]:
                yield _flat("level", d["name"], f"{row['level']}: {row['name']}", "", "", row)
    if by_pair:
        for d in report["dimensions"]:
            for row in d["per_pair"]:
                yield _flat("pair", d["name"], d["detail_level_name"], " / ".join(row["names"]), "", row)
    if after:
        for d in report["dimensions"]:
            for row in d["after"]["rows"]:
                yield _flat("after discussion", d["name"], d["detail_level_name"], "", names.get(row["rater"], ""), row)
    if report.get("screening"):
        yield _flat("screening", "Included or excluded", "", "", "", report["screening"])
