"""From a study's labels to its agreement report: pure Python over plain data (no Django here).

Choices a paper should state (the agreement page shows them too):
- Only submitted annotations count. An excluded annotation ("not a bug", "out of scope") is left out of
  every dimension's matrix (its cell is missing), except in an issue-type-like dimension (one that other
  dimensions' ``applies_when`` depends on), where it counts as the category "(excluded)". Without such a
  dimension a separate "screening" row compares included against excluded.
- Two-rater measures (percent agreement, Cohen's kappa and its Fleiss-Cohen-Everitt interval) use each
  issue's two raters: the pair chosen by the filter, else on every issue the two raters with the lowest
  ids ("pooled over pairs"). Krippendorff's alpha and Gwet's AC1 use every rater's labels.
- Multi-valued dimensions: Krippendorff's alpha with the MASI distance and the share of issues with the
  exact same set; kappa is not defined for sets, so the pilot gate uses alpha there.
- Per taxonomy level: every chosen category is replaced by its ancestor at that level (a category above
  the level stands for itself).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np

from annotator.agreement import (
    cohen_kappa,
    cohen_kappa_ci,
    gwet_ac1,
    krippendorff_alpha,
    krippendorff_alpha_masi,
    landis_koch_band,
    per_category_agreement,
    percent_agreement,
    why_undefined,
)

from .arrays import EXCLUDED_CODE, Annotations, Scope, take

EXCLUDED = "(excluded)"
HEAT_LEVELS = 10


def _num(value: float | None) -> float | None:
    """JSON-safe number: NaN (undefined) becomes None."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    return float(value)


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

    def at(self, pk: int, level: int) -> int:
        path = self.paths.get(pk)
        if not path:
            return pk
        return path[min(level, len(path)) - 1]


def _level_name(dimension, level: int, depth: int) -> str:
    names = dimension.level_names or []
    if level <= len(names) and names[level - 1]:
        return str(names[level - 1])
    return "leaf" if level == depth else f"level {level}"


def _issue_type_keys(dimensions) -> set[str]:
    keys = {d.key for d in dimensions}
    return {key for d in dimensions for key in (d.applies_when or {}) if key in keys}


class _Dimension:
    """How one dimension turns an annotation (or resolution) into a label at a given level."""

    def __init__(self, info, tree: _Tree, issue_type: bool):
        self.info, self.tree, self.issue_type = info, tree, issue_type
        self.multi = info.multi_valued

    def label(self, excluded: bool, ids: Sequence[int], level: int) -> Hashable | None:
        """A final label (a resolution's) encoded as the annotations are (see arrays.Annotations)."""
        if excluded:
            if not self.issue_type:
                return None
            return frozenset({EXCLUDED_CODE}) if self.multi else EXCLUDED_CODE
        mapped = [self.tree.at(pk, level) for pk in ids]
        if self.multi:
            return frozenset(mapped)
        return mapped[0] if mapped else None

    def codes(self, ann: Annotations, level: int) -> np.ndarray:
        return ann.sets(self, level) if self.multi else ann.single(self, level)

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


def measure_row(pair_rows: list[list], all_rows: list[list], *, multi: bool) -> dict[str, Any]:
    """One row of figures. ``pair_rows``: two rater rows (two-rater measures); ``all_rows``: every rater."""
    n = sum(1 for a, b in zip(*pair_rows, strict=True) if a is not None and b is not None) if pair_rows else 0
    if multi:
        alpha = krippendorff_alpha_masi(all_rows) if all_rows else math.nan
        exact = percent_agreement(pair_rows) if pair_rows else math.nan
        reason = why_undefined("krippendorff_alpha_masi", all_rows) if all_rows and math.isnan(alpha) else None
        return {
            "n": n,
            "percent": _num(exact),
            "exact_set": _num(exact),
            "kappa": None,
            "se": None,
            "low": None,
            "high": None,
            "alpha": _num(alpha),
            "ac1": None,
            "band": landis_koch_band(alpha),
            "gate_measure": "alpha_masi",
            "gate_value": _num(alpha),
            "undefined": str(reason or ("no issue was labelled by two raters" if not n else "")),
        }
    ci = cohen_kappa_ci(pair_rows)
    alpha = krippendorff_alpha(all_rows)
    return {
        "n": n,
        "percent": _num(percent_agreement(pair_rows)),
        "exact_set": None,
        "kappa": _num(ci.kappa),
        "se": _num(ci.se),
        "low": _num(ci.low),
        "high": _num(ci.high),
        "alpha": _num(alpha),
        "ac1": _num(gwet_ac1(all_rows)),
        "band": landis_koch_band(ci.kappa),
        "gate_measure": "kappa",
        "gate_value": _num(ci.kappa),
        "undefined": str(ci.reason or ""),
    }


def _confusion(dim: _Dimension, columns: list[int], pair_rows: list[list]) -> tuple[dict, dict]:
    cells: dict[tuple, list[int]] = defaultdict(list)
    for si, a, b in zip(columns, *pair_rows, strict=True):
        if a is not None and b is not None:
            cells[(a, b)].append(si)
    used = sorted({x for key in cells for x in key}, key=dim.sort_key)
    index = {label: i for i, label in enumerate(used)}
    peak = max((len(v) for v in cells.values()), default=0)
    matrix = [[{"count": 0, "heat": 0} for _ in used] for _ in used]
    ids: dict[str, list[int]] = {}
    for (a, b), members in cells.items():
        i, j = index[a], index[b]
        heat = max(1, math.ceil(len(members) / peak * (HEAT_LEVELS - 1))) if peak else 0
        matrix[i][j] = {"count": len(members), "heat": heat}
        ids[f"{i}-{j}"] = members
    names = [dim.name(label) for label in used]
    return {"categories": names, "rows": [{"category": n, "cells": r} for n, r in zip(names, matrix, strict=True)]}, ids


def _per_category(dim: _Dimension, pair_rows: list[list]) -> list[dict]:
    if dim.multi:
        members = sorted({x for row in pair_rows for cell in row if cell for x in cell}, key=dim.sort_key)
        out = []
        for category in members:
            binary = [[None if cell is None else (category in cell) for cell in row] for row in pair_rows]
            result = per_category_agreement(binary, categories=[True, False])[True]
            out.append((category, result))
    else:
        both = [[a, b] for a, b in zip(*pair_rows, strict=True) if a is not None and b is not None]
        if not both:
            return []
        results = per_category_agreement([[a for a, _ in both], [b for _, b in both]])
        out = sorted(results.items(), key=lambda item: dim.sort_key(item[0]))
    return [
        {
            "category": dim.name(category),
            "kappa": _num(r.kappa),
            "specific_agreement": _num(r.specific_agreement),
            "n_first": r.n_first,
            "n_second": r.n_second,
            "n_both": r.n_both,
        }
        for category, r in out
    ]


def _after_discussion(
    dim: _Dimension, scope: Scope, codes: np.ndarray, resolutions: dict, level: int, names: dict
) -> dict:
    """Each rater against the final label, on the issues whose final label of this dimension is decided.

    A resolution lists only decided dimensions; a pending one is absent and so left out here.
    """
    positions, final = [], []
    for position, si in enumerate(scope.column_list):
        if si not in resolutions:
            continue
        excluded, values = resolutions[si]
        if excluded:
            label = dim.label(True, [], level)
        elif dim.info.key in values:
            label = dim.label(False, [int(x) for x in values[dim.info.key] or []], level)
        else:
            label = None
        if label is not None:
            positions.append(position)
            final.append(label)
    if not positions:
        return {"available": False, "rows": [], "resolved": 0}
    rows = []
    for r, rater in enumerate(scope.raters):
        pair = [take(codes, scope.matrix[r][positions]), final]
        rows.append({"rater": rater, "name": names.get(rater, str(rater)), **measure_row(pair, pair, multi=dim.multi)})
    return {"available": True, "rows": rows, "resolved": len(positions)}


def _pairs(scope: Scope, rater_names: dict[int, str]) -> list[dict]:
    shared = scope.shared()
    return [
        {"key": f"{a}-{b}", "raters": [a, b], "names": [rater_names.get(a, str(a)), rater_names.get(b, str(b))], "n": n}
        for (a, b), n in sorted(shared.items())
    ]


def build_report(
    labels, *, round_number: int | None = None, pair: tuple[int, int] | None = None, level: int | None = None
) -> tuple[dict[str, Any], dict[str, list[int]]]:
    """The agreement report (JSON-ready) and, apart, the study issues of every confusion-matrix cell.

    Cell ids are keyed ``"<dimension key>:<row>-<col>"`` (indices into that dimension's confusion categories).
    """
    ann = Annotations(labels)
    scope = Scope(ann, round_number=round_number, pair=pair)
    issue_types = _issue_type_keys(labels.dimensions)
    pairs = _pairs(scope, labels.rater_names)
    pair_scopes = [Scope(ann, round_number=round_number, pair=tuple(p["raters"])) for p in pairs]
    round_scopes = [(number, Scope(ann, round_number=number, pair=pair)) for number, _kind in labels.rounds]
    report: dict[str, Any] = {
        "filters": {"round": round_number, "pair": f"{pair[0]}-{pair[1]}" if pair else None, "level": level},
        "rounds": [{"number": n, "kind": kind} for n, kind in labels.rounds],
        "raters": [{"id": r, "name": labels.rater_names.get(r, str(r))} for r in scope.raters],
        "pairs": pairs,
        "pooled": pair is None and len(pairs) > 1,
        "issues": len(scope.columns),
        "resolutions": sum(1 for si in scope.column_list if si in labels.resolutions),
        "dimensions": [],
        "screening": None,
    }
    cells: dict[str, list[int]] = {}
    for info in labels.dimensions:
        dim = _Dimension(info, _Tree(labels.categories, info.pk), info.key in issue_types)
        depth = dim.tree.depth
        detail = min(level, depth) if level else depth
        levels = [detail] if level else list(range(1, depth + 1))
        level_rows = []
        for number in levels:
            pair_rows, all_rows = scope.rows(dim.codes(ann, number))
            row = measure_row(pair_rows, all_rows, multi=dim.multi)
            level_rows.append({"level": number, "name": _level_name(info, number, depth), **row})
            if number == detail:
                summary, detail_pair_rows = level_rows[-1], pair_rows
        codes = dim.codes(ann, detail)
        confusion, cell_ids = _confusion(dim, scope.column_list, detail_pair_rows)
        cells.update({f"{info.key}:{key}": ids for key, ids in cell_ids.items()})
        per_pair = []
        for p, sub in zip(pairs, pair_scopes, strict=True):
            pair_rows, all_rows = sub.rows(codes)
            per_pair.append(
                {"pair": p["key"], "names": p["names"], **measure_row(pair_rows, all_rows, multi=dim.multi)}
            )
        trend = []
        for number, sub in round_scopes:
            pair_rows, all_rows = sub.rows(codes)
            if dim.multi:
                value = krippendorff_alpha_masi(all_rows) if all_rows else math.nan
            else:
                value = cohen_kappa(pair_rows)
            n = sum(1 for a, b in zip(*pair_rows, strict=True) if a is not None and b is not None)
            trend.append({"round": number, "value": _num(value), "n": n})
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
                "per_category": _per_category(dim, detail_pair_rows),
                "after": _after_discussion(dim, scope, codes, labels.resolutions, detail, labels.rater_names),
                "trend": trend,
            }
        )
    report["after_available"] = any(d["after"]["available"] for d in report["dimensions"])
    if not issue_types:
        included = np.where(ann.excluded, EXCLUDED_CODE, 1).astype(np.int64)
        pair_rows, all_rows = scope.rows(included)
        report["screening"] = measure_row(pair_rows, all_rows, multi=False)
    return report, cells
