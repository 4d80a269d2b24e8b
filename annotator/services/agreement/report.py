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
from core.errors import DomainError, NotFoundError
from core.numbers import ascii_int

from .compute import bootstrap_summaries, build_report

CACHE_SECONDS = 7 * 24 * 3600
FORMAT = 4  # bump when the report's shape changes, so old cache entries are not read


def parse_pair(text: str | None, aliases: dict[int, str] | None = None) -> tuple[int, int] | None:
    """ "12-15" -> (12, 15): a pair of rater ids, in either order; with ``aliases`` also "R1-R2"."""
    if not text:
        return None
    by_alias = {alias.lower(): pk for pk, alias in (aliases or {}).items()}
    parts = str(text).split("-")
    if len(parts) != 2 or not all(ascii_int(part) is not None or _is_alias(part) for part in parts):
        raise DomainError(f"A rater pair is written as two rater ids, e.g. 12-15; got '{text[:40]}'.", field="pair")
    unknown = [part for part in parts if _is_alias(part) and part.lower() not in by_alias]
    if unknown:
        raise NotFoundError(f"No rater of this study is shown as {unknown[0]}.", field="pair")
    a, b = (by_alias[part.lower()] if _is_alias(part) else ascii_int(part) for part in parts)
    if a == b:
        # Well formed, but it names no pair: the same answer as a pair that shares no labels.
        raise NotFoundError("A rater pair needs two different raters.", field="pair")
    return (min(a, b), max(a, b))


def _is_alias(part: str) -> bool:
    return part[:1] in ("R", "r") and ascii_int(part[1:]) is not None


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


def report_with_aliases(report: dict[str, Any], aliases: dict[int, str] | None) -> dict[str, Any]:
    """The report with every rater named by pseudonym (``rater_aliases``), ids hidden; as it is without aliases.

    Pair keys become "R1-R2" (``parse_pair`` reads them back with the same aliases).
    """
    if aliases is None:
        return report

    def alias(pk) -> str:
        return aliases.get(int(pk), "R?")

    def key(text: str | None) -> str | None:
        return "-".join(alias(part) for part in text.split("-")) if text else text

    def pair_row(row: dict) -> dict:
        names = [alias(part) for part in row["pair"].split("-")]
        return {**row, "pair": "-".join(names), "names": names}

    dimensions = []
    for d in report["dimensions"]:
        after = {**d["after"], "rows": [{**r, "rater": None, "name": alias(r["rater"])} for r in d["after"]["rows"]]}
        dimensions.append({**d, "per_pair": [pair_row(r) for r in d.get("per_pair", [])], "after": after})
    return {
        **report,
        "filters": {**report["filters"], "pair": key(report["filters"]["pair"])},
        "raters": [{"id": None, "name": alias(r["id"])} for r in report["raters"]],
        "pairs": [
            {**p, "key": key(p["key"]), "raters": [None, None], "names": [alias(r) for r in p["raters"]]}
            for p in report["pairs"]
        ],
        "dimensions": dimensions,
        "anonymous": True,
    }


def _check_filters(report: dict, round_number, pair, level) -> None:
    rounds = [r["number"] for r in report["rounds"]]
    if round_number is not None and round_number not in rounds:
        shown = ", ".join(map(str, rounds)) or "none yet"
        raise NotFoundError(f"This study has no round {round_number}; its rounds are: {shown}.", field="round")
    if pair is not None and not report["raters"]:
        raise NotFoundError(
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
    bootstrap: bool = False,
) -> dict[str, Any]:
    """The study's agreement report for the filters, from the cache when its labels have not changed.

    ``version`` (from ``labels_version``) saves its query when the caller asked for it already.
    ``bootstrap``: add seeded bootstrap intervals to each dimension's summary (``summary["bootstrap"]``),
    computed once per labels version and filters, and cached beside the report.
    """
    version = version or labels_version(study=study)
    report_key, _ = _keys(study, version, round_number, pair, level)
    report = cache.get(report_key)
    if report is None:
        report, _ = _compute(study, version, round_number, pair, level)
    _check_filters(report, round_number, pair, level)
    if bootstrap:
        report = _with_bootstrap(study, version, report, round_number, pair, level)
    return report


def _with_bootstrap(study: Study, version: str, report: dict, round_number, pair, level) -> dict:
    key = f"{_keys(study, version, round_number, pair, level)[0]}:bootstrap"
    intervals = cache.get(key)
    if intervals is None:
        labels = _labels(study, version)
        intervals = bootstrap_summaries(labels, round_number=round_number, pair=pair, level=level)
        cache.set(key, intervals, CACHE_SECONDS)
    dimensions = [
        {**d, "summary": {**d["summary"], "bootstrap": intervals.get(d["key"], [])}} for d in report["dimensions"]
    ]
    return {**report, "dimensions": dimensions}


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


# basis: which labels a row measures ("independent": first submissions; "after discussion": revised labels).
# kappa_low / kappa_high: the 95% Wald interval clipped to kappa's range [-1, 1]; kappa_ci_clipped is true when
# an end was clipped, false when not, empty where there is no interval; kappa_ci_note says why there is none
# ("not estimable: ..."). n_left_out: issues of the scope left out of n, left_out: how many for each reason.
TABLE_COLUMNS = [
    "basis",
    "view",
    "dimension",
    "level",
    "pair",
    "rater",
    "n",
    "n_left_out",
    "left_out",
    "percent_agreement",
    "kappa",
    "kappa_low",
    "kappa_high",
    "kappa_ci_clipped",
    "kappa_ci_note",
    "alpha",
    "ac1",
    "band",
    "undefined",
]

INDEPENDENT = "independent (first submissions)"
AFTER = "after discussion"


def left_out_text(row: dict, reasons: dict[str, str]) -> str:
    """ "2 a new category proposed instead of a choice; 1 no category chosen" (empty when nothing is left out)."""
    return "; ".join(f"{count} {reasons.get(key, key)}" for key, count in (row.get("left_out") or {}).items())


def _flat(basis: str, view: str, dimension: str, level: str, pair: str, rater: str, row: dict, reasons: dict) -> list:
    return [
        basis,
        view,
        dimension,
        level,
        pair,
        rater,
        row["n"],
        row.get("n_left_out", 0),
        left_out_text(row, reasons),
        row["percent"],
        row["kappa"],
        row["low"],
        row["high"],
        row.get("ci_clipped"),
        row.get("ci_note", ""),
        row["alpha"],
        row["ac1"],
        row["band"],
        row["undefined"],
    ]


def report_rows(report: dict, *, by_level: bool = True, by_pair: bool = True, after: bool = True) -> Iterator[list]:
    """The report as rows under TABLE_COLUMNS: one "overall" row per dimension, then the views asked for."""
    names = {r["id"]: r["name"] for r in report["raters"]}
    reasons = report.get("left_out_reasons", {})

    def flat(basis, view, dimension, level, pair, rater, row):
        return _flat(basis, view, dimension, level, pair, rater, row, reasons)

    for d in report["dimensions"]:
        yield flat(INDEPENDENT, "overall", d["name"], d["detail_level_name"], "", "", d["summary"])
    if by_level:
        for d in report["dimensions"]:
            for row in d["levels"]:
                yield flat(INDEPENDENT, "level", d["name"], f"{row['level']}: {row['name']}", "", "", row)
    if by_pair:
        for d in report["dimensions"]:
            for row in d["per_pair"]:
                yield flat(INDEPENDENT, "pair", d["name"], d["detail_level_name"], " / ".join(row["names"]), "", row)
    if report.get("screening"):
        yield flat(INDEPENDENT, "screening", "Included or excluded", "", "", "", report["screening"])
    if after:
        for d in report["dimensions"]:
            revised = d["after"].get("revised")
            if revised:
                yield flat(AFTER, "rater against rater", d["name"], d["detail_level_name"], "", "", revised)
            for row in d["after"]["rows"]:
                rater = row.get("name") or names.get(row["rater"], "")
                yield flat(AFTER, "against the final label", d["name"], d["detail_level_name"], "", rater, row)
