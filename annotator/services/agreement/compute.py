"""From a study's labels to its agreement report: pure Python over plain data (no Django here).

Choices a paper should state (the agreement page shows them too):
- Only submitted annotations count. An excluded annotation ("not a bug", "out of scope") is left out of
  every dimension's matrix (its cell is missing), except in an issue-type-like dimension (one that other
  dimensions' ``applies_when`` depends on), where it counts as the category "(excluded)". Without such a
  dimension a separate "screening" row compares included against excluded.
- An issue on which a rater gave no category for a dimension (left it blank, a spreadsheet's "PENDING", a
  proposal for a new category instead of a choice) is missing in that dimension, single- or multi-valued
  alike: it is left out of the dimension's two-rater figures and n, and alpha and AC1 see no value from that
  rater. A final label works the same way: a dimension still pending, or decided with no category, is missing.
- Two-rater measures (percent agreement, Cohen's kappa and its Fleiss-Cohen-Everitt interval) use each
  issue's two raters: the pair chosen by the filter, else on every issue the two raters with the lowest
  ids ("pooled over pairs"). Krippendorff's alpha and Gwet's AC1 use every rater's labels.
- The 95% interval of kappa is the Wald interval kappa -/+ 1.96 se clipped to kappa's range [-1, 1] (with few
  issues it runs past 1); ``ci_clipped`` marks each row where an end was clipped, ``ci_clipped`` of the report
  whether any row was.
- Multi-valued dimensions: Krippendorff's alpha with the MASI distance and the share of issues with the
  exact same set; kappa is not defined for sets, so the pilot gate uses alpha there.
- Per taxonomy level: every chosen category is replaced by its ancestor at that level (a category above
  the level stands for itself).
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from typing import Any

import numpy as np

from annotator.agreement import (
    bootstrap_ci,
    cohen_kappa,
    gwet_ac1,
    krippendorff_alpha,
    krippendorff_alpha_masi,
    per_category_agreement,
)

from .arrays import EXCLUDED_CODE, MISSING, Entries, Scope, take
from .measures import both_labelled, measure_row, num, trend_value

EXCLUDED = "(excluded)"
HEAT_LEVELS = 10
CELL_VALUES = np.array([False, True, None], dtype=object)


class _Tree:
    """Ancestors of every category of one dimension, by level (1 = the roots)."""

    def __init__(self, categories: dict, dimension_id: int):
        own = {pk: c for pk, c in categories.items() if c.dimension_id == dimension_id}
        self.names = {pk: c.name for pk, c in own.items()}
        self.sort_key = {pk: (c.order, c.name.lower(), pk) for pk, c in own.items()}
        self.paths: dict[int, tuple[int, ...]] = {}
        for pk in own:
            path, node, seen = [], pk, set()
            while node is not None and node in own and node not in seen:
                seen.add(node)
                path.append(node)
                node = own[node].parent_id
            self.paths[pk] = tuple(reversed(path))
        self.depth = max((len(p) for p in self.paths.values()), default=1)
        self._keys = np.array(sorted(self.paths), dtype=np.int64)
        self._levels: dict[int, np.ndarray] = {}

    def at(self, pk: int, level: int) -> int:
        path = self.paths.get(pk)
        if not path:
            return pk
        return path[min(level, len(path)) - 1]

    def map(self, ids: np.ndarray, level: int) -> np.ndarray:
        """``at`` for an array of category ids (an id this dimension does not know stands for itself)."""
        if level >= self.depth or not ids.size or not self._keys.size:
            return ids
        if level not in self._levels:
            self._levels[level] = np.array([self.at(pk, level) for pk in self._keys.tolist()], dtype=np.int64)
        pos = np.minimum(np.searchsorted(self._keys, ids), len(self._keys) - 1)
        return np.where(self._keys[pos] == ids, self._levels[level][pos], ids)


def _level_name(dimension, level: int, depth: int) -> str:
    names = dimension.level_names or []
    if level <= len(names) and names[level - 1]:
        return str(names[level - 1])
    return "leaf" if level == depth else f"level {level}"


def _issue_type_keys(dimensions) -> set[str]:
    keys = {d.key for d in dimensions}
    return {key for d in dimensions for key in (d.applies_when or {}) if key in keys}


class _Dimension:
    """How one dimension turns an entry (annotation or resolution) into a label at a given level."""

    def __init__(self, info, tree: _Tree, issue_type: bool):
        self.info, self.tree, self.issue_type = info, tree, issue_type
        self.multi = info.multi_valued

    def codes(self, entries: Entries, level: int) -> tuple[np.ndarray, list | None]:
        return entries.codes(self, level)

    def name(self, label: Hashable) -> str:
        if isinstance(label, frozenset):
            return " + ".join(sorted(self.name(x) for x in label)) or "(none)"
        if label == EXCLUDED_CODE:
            return EXCLUDED
        return self.tree.names.get(label, str(label))

    def sort_key(self, label: Hashable) -> tuple:
        if isinstance(label, frozenset):
            return (1, len(label), self.name(label).lower())
        if label == EXCLUDED_CODE:
            return (2, 0, "")
        return (0, *self.tree.sort_key.get(label, (0, "", label)))


def _label(code: int, sets: list | None) -> Hashable:
    return sets[code] if sets is not None else code


def _confusion(dim: _Dimension, columns: np.ndarray, pair: np.ndarray, sets: list | None) -> tuple[dict, dict]:
    """The rater-by-rater matrix of the issues both labelled, and the study issues of each cell (in study order)."""
    both = (pair[0] >= 0) & (pair[1] >= 0)
    a, b, members = pair[0][both], pair[1][both], columns[both]
    codes = np.unique(np.concatenate([a, b]))
    used = sorted((_label(c, sets) for c in codes.tolist()), key=dim.sort_key)
    position = {label: i for i, label in enumerate(used)}
    index = np.array([position[_label(c, sets)] for c in codes.tolist()], dtype=np.int64)
    size = len(used)
    cell = index[np.searchsorted(codes, a)] * size + index[np.searchsorted(codes, b)] if size else a
    counts = np.bincount(cell, minlength=size * size) if size else np.zeros(0, dtype=np.int64)
    peak = int(counts.max()) if counts.size else 0
    order = np.argsort(cell, kind="stable")
    bounds = np.searchsorted(cell[order], np.arange(size * size + 1))
    matrix = [[{"count": 0, "heat": 0} for _ in used] for _ in used]
    ids: dict[str, list[int]] = {}
    for flat in np.flatnonzero(counts).tolist():
        i, j, count = flat // size, flat % size, int(counts[flat])
        heat = max(1, math.ceil(count / peak * (HEAT_LEVELS - 1))) if peak else 0
        matrix[i][j] = {"count": count, "heat": heat}
        ids[f"{i}-{j}"] = members[order[bounds[flat] : bounds[flat + 1]]].tolist()
    names = [dim.name(label) for label in used]
    return {"categories": names, "rows": [{"category": n, "cells": r} for n, r in zip(names, matrix, strict=True)]}, ids


def _per_category(dim: _Dimension, pair: np.ndarray, sets: list | None) -> list[dict]:
    if sets is not None:
        present = np.unique(pair[pair >= 0]).tolist()
        members = sorted({x for code in present for x in sets[code]}, key=dim.sort_key)
        out = []
        for category in members:
            inside = np.array([category in s for s in sets], dtype=np.int64)
            # One "in the set / not / unlabelled" row per rater, built by indexing, not per cell in Python.
            rows = [CELL_VALUES[np.where(row < 0, 2, inside[np.maximum(row, 0)])].tolist() for row in pair]
            result = per_category_agreement(rows, categories=[True, False])[True]
            out.append((category, result))
    else:
        both = (pair[0] >= 0) & (pair[1] >= 0)
        if not both.any():
            return []
        results = per_category_agreement([pair[0][both].tolist(), pair[1][both].tolist()])
        out = sorted(results.items(), key=lambda item: dim.sort_key(item[0]))
    return [
        {
            "category": dim.name(category),
            "kappa": num(r.kappa),
            "specific_agreement": num(r.specific_agreement),
            "n_first": r.n_first,
            "n_second": r.n_second,
            "n_both": r.n_both,
        }
        for category, r in out
    ]


# Why an issue in scope is left out of a figure (its "n left out"), in the order they are tested.
LEFT_OUT_REASONS = {
    "one_rater": "labelled by one rater only so far",
    "no_final_label": "no final label yet",
    "excluded": "excluded (not a bug / out of scope)",
    "proposal": "a new category proposed instead of a choice",
    "missing_label": "no category chosen",
}


def left_out(entries: Entries, dim, codes: np.ndarray, a: np.ndarray, b: np.ndarray, absent: str) -> dict:
    """n used and n left out (with why) of a two-sided figure over the issues whose entries are ``a``, ``b``.

    ``a`` and ``b`` are entry indices per issue (MISSING where there is none); an issue counts when either side
    has an entry. It is used when both sides have a label of the dimension; else it is left out for the first
    reason that holds: one side has no entry at all (``absent``: "one_rater" or "no_final_label"), a side is
    excluded (outside an issue-type dimension, where exclusion is a label), a side proposed a new category
    instead of choosing one, or a side chose no category.
    """
    used = (take(codes, a) >= 0) & (take(codes, b) >= 0)
    left = ((a >= 0) | (b >= 0)) & ~used
    missing_side = left & ((a < 0) | (b < 0))
    rest = left & ~missing_side
    ia, ib = np.maximum(a, 0), np.maximum(b, 0)
    if dim is None or dim.issue_type or not entries.size:
        excluded = np.zeros_like(rest)
    else:
        excluded = rest & (entries.excluded[ia] | entries.excluded[ib])
    proposed = entries.proposals(dim.info.pk) if dim is not None else np.zeros(entries.size, dtype=bool)
    proposal = rest & ~excluded & ((proposed[ia] | proposed[ib]) if entries.size else rest)
    counts = {
        absent: int(missing_side.sum()),
        "excluded": int(excluded.sum()),
        "proposal": int(proposal.sum()),
        "missing_label": int((rest & ~excluded & ~proposal).sum()),
    }
    return {"n_left_out": int(left.sum()), "left_out": {k: v for k, v in counts.items() if v}}


def _pair_left_out(entries: Entries, scope: Scope, dim, codes: np.ndarray) -> dict:
    """``left_out`` of a rater-against-rater figure: each issue's first two raters in the scope."""
    return left_out(entries, dim, codes, scope.lead, scope.second, "one_rater")


def _final_entries(entries: Entries, columns: np.ndarray) -> np.ndarray:
    """Per study issue of ``columns``: the entry of its resolved final label, MISSING where it has none."""
    res_si = entries.res_si
    if not len(res_si) or not len(columns):
        return np.full(len(columns), MISSING, dtype=np.int64)
    pos = np.minimum(np.searchsorted(res_si, columns), len(res_si) - 1)
    resolved = (res_si[pos] == columns) & entries.res_resolved[pos]
    return np.where(resolved, entries.n + pos, MISSING)


def _after_discussion(entries: Entries, scope: Scope, dim, codes: np.ndarray, sets: list | None, names: dict) -> dict:
    """After discussion, from the annotations as they are now (``entries`` is the revised layer):
    rater against rater, and each rater against the final label over the issues that have one.

    Only a resolved final label counts (not one pending or sent back); a dimension it leaves undecided or
    empty is missing.
    """
    pair_rows, all_rows = scope.rows(codes)
    revised = {**measure_row(pair_rows, all_rows, sets=sets), **_pair_left_out(entries, scope, dim, codes)}
    final_entry = _final_entries(entries, scope.columns)
    resolved = int((final_entry >= 0).sum())
    final = take(codes, final_entry)
    rows = []
    if resolved:
        for r, rater in enumerate(scope.raters):
            labelled = scope.matrix[r] >= 0
            own, theirs = scope.matrix[r][labelled], final_entry[labelled]
            pair = np.vstack([take(codes, own), final[labelled]])
            figures = measure_row(pair, pair, sets=sets)
            accounting = left_out(entries, dim, codes, own, theirs, "no_final_label")
            rows.append({"rater": rater, "name": names.get(rater, str(rater)), **figures, **accounting})
    available = any(row["n"] for row in rows)
    return {"available": available, "rows": rows, "resolved": resolved, "revised": revised}


def _pairs(scope: Scope, rater_names: dict[int, str]) -> list[dict]:
    shared = scope.shared()
    return [
        {"key": f"{a}-{b}", "raters": [a, b], "names": [rater_names.get(a, str(a)), rater_names.get(b, str(b))], "n": n}
        for (a, b), n in sorted(shared.items())
    ]


BEFORE_LABEL = "Independent (first submissions)"
AFTER_LABEL = "After discussion (revised labels; final labels)"


def build_report(
    labels, *, round_number: int | None = None, pair: tuple[int, int] | None = None, level: int | None = None
) -> tuple[dict[str, Any], dict[str, list[int]]]:
    """The agreement report (JSON-ready) and, apart, the study issues of every confusion-matrix cell.

    Every "before discussion" figure (the summary, levels, pairs, trend, confusion matrices, per category,
    screening, and so the pilot gate) comes from the raters' first submissions; "after" from the annotations
    as they are now and the resolved final labels. Cell ids are keyed ``"<dimension key>:<row>-<col>"``
    (indices into that dimension's confusion categories).
    """
    keys = {d.key: d.pk for d in labels.dimensions}
    entries = Entries(labels, keys, labels.first)
    revised = Entries(labels, keys, labels.revised)
    scope = Scope(entries, round_number=round_number, pair=pair)
    revised_scope = Scope(revised, round_number=round_number, pair=pair)
    issue_types = _issue_type_keys(labels.dimensions)
    pairs = _pairs(scope, labels.rater_names)
    pair_scopes = [Scope(entries, round_number=round_number, pair=tuple(p["raters"])) for p in pairs]
    round_scopes = [(number, Scope(entries, round_number=number, pair=pair)) for number, _kind in labels.rounds]
    final = _final_entries(revised, scope.columns)
    has_resolution = np.isin(scope.columns, entries.res_si)
    resolved = int((final >= 0).sum())
    report: dict[str, Any] = {
        "before_label": BEFORE_LABEL,
        "after_label": AFTER_LABEL,
        "filters": {"round": round_number, "pair": f"{pair[0]}-{pair[1]}" if pair else None, "level": level},
        "rounds": [{"number": n, "kind": kind} for n, kind in labels.rounds],
        "subset": dict(labels.subset),
        "raters": [{"id": r, "name": labels.rater_names.get(r, str(r))} for r in scope.raters],
        "pairs": pairs,
        "pooled": pair is None and len(pairs) > 1,
        "issues": len(scope.columns),
        "resolved": resolved,
        "pending": int(has_resolution.sum()) - resolved,
        "with_raters": len(scope.columns) - int(has_resolution.sum()),
        "resolutions": resolved,
        "left_out_reasons": LEFT_OUT_REASONS,
        "dimensions": [],
        "screening": None,
    }
    cells: dict[str, list[int]] = {}
    # Issues whose first two raters' first submissions agree on everything (exclusion and every dimension).
    compared = scope.second >= 0
    unanimous = compared & (
        take(entries.excluded.astype(np.int64), scope.lead) == take(entries.excluded.astype(np.int64), scope.second)
    )
    for info in labels.dimensions:
        dim = _Dimension(info, _Tree(labels.categories, info.pk), info.key in issue_types)
        depth = dim.tree.depth
        detail = min(level, depth) if level else depth
        levels = [detail] if level else list(range(1, depth + 1))
        level_rows = []
        for number in levels:
            codes, sets = dim.codes(entries, number)
            pair_rows, all_rows = scope.rows(codes)
            row = {**measure_row(pair_rows, all_rows, sets=sets), **_pair_left_out(entries, scope, dim, codes)}
            level_rows.append({"level": number, "name": _level_name(info, number, depth), **row})
            if number == detail:
                summary, detail_pair_rows = level_rows[-1], pair_rows
        codes, sets = dim.codes(entries, detail)
        unanimous &= take(codes, scope.lead) == take(codes, scope.second)
        confusion, cell_ids = _confusion(dim, scope.columns, detail_pair_rows, sets)
        cells.update({f"{info.key}:{key}": ids for key, ids in cell_ids.items()})
        per_pair = []
        for p, sub in zip(pairs, pair_scopes, strict=True):
            pair_rows, all_rows = sub.rows(codes)
            row = {**measure_row(pair_rows, all_rows, sets=sets), **_pair_left_out(entries, sub, dim, codes)}
            per_pair.append({"pair": p["key"], "names": p["names"], **row})
        trend = []
        for number, sub in round_scopes:
            pair_rows, all_rows = sub.rows(codes)
            value = trend_value(pair_rows, all_rows, sets=sets)
            trend.append({"round": number, "value": num(value), "n": both_labelled(pair_rows)})
        revised_codes, revised_sets = dim.codes(revised, detail)
        report["dimensions"].append(
            {
                "key": info.key,
                "name": info.name,
                "multi_valued": dim.multi,
                "issue_type": dim.issue_type,
                "depth": depth,
                "detail_level": detail,
                "detail_level_name": _level_name(info, detail, depth),
                "summary": summary,
                "levels": level_rows,
                "per_pair": per_pair,
                "confusion": confusion,
                "per_category": _per_category(dim, detail_pair_rows, sets),
                "after": _after_discussion(
                    revised, revised_scope, dim, revised_codes, revised_sets, labels.rater_names
                ),
                "trend": trend,
            }
        )
    report["after_available"] = any(d["after"]["available"] for d in report["dimensions"])
    report["independent_unanimous"] = {"compared": int(compared.sum()), "unanimous": int(unanimous.sum())}
    if not issue_types:
        included = np.where(entries.excluded, EXCLUDED_CODE, 1).astype(np.int64)
        pair_rows, all_rows = scope.rows(included)
        report["screening"] = {**measure_row(pair_rows, all_rows), **_pair_left_out(entries, scope, None, included)}
    report["ci_clipped"] = any(row.get("ci_clipped") for row in _rows(report))
    return report, cells


def _rows(report: dict[str, Any]):
    """Every row of figures in the report (those that may carry a kappa interval)."""
    for d in report["dimensions"]:
        yield d["summary"]
        yield from d["levels"]
        yield from d["per_pair"]
        yield from d["after"]["rows"]
        yield d["after"]["revised"]
    if report["screening"]:
        yield report["screening"]


BOOTSTRAP_RESAMPLES = 1000
BOOTSTRAP_SEED = 0


def _python_rows(rows: np.ndarray, sets: list | None) -> list[list]:
    """Integer label rows back to the public measures' input: None where missing, label sets for sets."""
    if sets is None:
        return [[None if v < 0 else v for v in row] for row in rows.tolist()]
    return [[None if v < 0 else sets[v] for v in row] for row in rows.tolist()]


def _bootstrap(measure, rows: list[list], name: str) -> dict[str, Any]:
    result = bootstrap_ci(measure, rows, n_resamples=BOOTSTRAP_RESAMPLES, seed=BOOTSTRAP_SEED)
    low, high = num(result.low), num(result.high)
    note = f"seeded percentile bootstrap over issues ({result.n_resamples} resamples, seed {result.seed})"
    if low is None or high is None:
        low = high = None
        note = f"not estimable: {result.reason or 'the measure is undefined'}"
    elif high - low <= 1e-9:
        low = high = None
        note = "not estimable: every resample gave the same value (zero width)"
    return {
        "measure": name,
        "estimate": num(result.estimate),
        "low": low,
        "high": high,
        "level": result.level,
        "n_resamples": result.n_resamples,
        "seed": result.seed,
        "note": note,
    }


def bootstrap_summaries(
    labels, *, round_number: int | None = None, pair: tuple[int, int] | None = None, level: int | None = None
) -> dict[str, list[dict[str, Any]]]:
    """Seeded bootstrap intervals of each dimension's independent summary figures, by dimension key.

    Kappa has an analytic interval, but not where it is not estimable; alpha and AC1 (and alpha with MASI for
    sets) have none at all: the bootstrap gives each an interval. It resamples issues, so it costs about
    ``BOOTSTRAP_RESAMPLES`` computations of each measure: computed only when asked for, and cached.
    """
    entries = Entries(labels, {d.key: d.pk for d in labels.dimensions}, labels.first)
    scope = Scope(entries, round_number=round_number, pair=pair)
    issue_types = _issue_type_keys(labels.dimensions)
    out: dict[str, list[dict[str, Any]]] = {}
    for info in labels.dimensions:
        dim = _Dimension(info, _Tree(labels.categories, info.pk), info.key in issue_types)
        detail = min(level, dim.tree.depth) if level else dim.tree.depth
        codes, sets = dim.codes(entries, detail)
        pair_rows, all_rows = scope.rows(codes)
        every = _python_rows(all_rows, sets)
        if sets is not None:
            out[info.key] = [_bootstrap(krippendorff_alpha_masi, every, "alpha_masi")] if every else []
            continue
        out[info.key] = [
            _bootstrap(cohen_kappa, _python_rows(pair_rows, None), "kappa"),
            *([_bootstrap(krippendorff_alpha, every, "alpha"), _bootstrap(gwet_ac1, every, "ac1")] if every else []),
        ]
    return out
