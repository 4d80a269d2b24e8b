"""The study's annotations as numpy arrays, and the rater-by-issue matrices of a scope (pure, no Django).

At 100,000 doubly-labelled issues a Python loop per cell and per view (level, pair, round) is what costs:
here every annotation is encoded once per dimension and level, and a scope (a round, a pair) is a matrix
of annotation indices, so each view is a few numpy indexing steps.
"""

from __future__ import annotations

from collections.abc import Hashable
from functools import cached_property

import numpy as np

EXCLUDED_CODE = 0  # category ids start at 1, so 0 can stand for "(excluded)"
MISSING = -1


class Annotations:
    """Every submitted annotation: study issue, rater, excluded flag and values, as parallel arrays."""

    def __init__(self, labels):
        rows = labels.annotations
        n = len(rows)
        self.n = n
        self.values = [row[3] for row in rows]
        self.si = np.fromiter((row[0] for row in rows), dtype=np.int64, count=n)
        self.rater = np.fromiter((row[1] for row in rows), dtype=np.int64, count=n)
        self.excluded = np.fromiter((bool(row[2]) for row in rows), dtype=bool, count=n)
        meta = labels.study_issues
        self.round = np.fromiter((meta.get(row[0], (MISSING,))[0] for row in rows), dtype=np.int64, count=n)
        self.known = self.round != MISSING
        self._codes: dict[tuple[int, int], np.ndarray] = {}

    def single(self, dim, level: int) -> np.ndarray:
        """Per annotation: the category at ``level`` (its first, for a single-valued dimension), MISSING, or
        EXCLUDED_CODE for an excluded annotation in an issue-type dimension."""
        key = (dim.info.pk, level)
        if key not in self._codes:
            pk = dim.info.pk
            first = np.fromiter(
                ((self.values[i].get(pk) or (MISSING,))[0] for i in range(self.n)), dtype=np.int64, count=self.n
            )
            if level < dim.tree.depth and first.size:
                lookup = {c: dim.tree.at(c, level) for c in np.unique(first[first > 0]).tolist()}
                labelled = first > 0
                first[labelled] = np.fromiter(
                    map(lookup.__getitem__, first[labelled].tolist()), dtype=np.int64, count=int(labelled.sum())
                )
            first[self.excluded] = EXCLUDED_CODE if dim.issue_type else MISSING
            self._codes[key] = first
        return self._codes[key]

    def sets(self, dim, level: int) -> np.ndarray:
        """Per annotation: the frozenset of categories at ``level`` (an object array), None when excluded."""
        pk = dim.info.pk
        out = np.empty(self.n, dtype=object)
        for i in range(self.n):
            if self.excluded[i]:
                out[i] = frozenset({EXCLUDED_CODE}) if dim.issue_type else None
            else:
                out[i] = frozenset(dim.tree.at(c, level) for c in self.values[i].get(pk, ()))
        return out


def take(codes: np.ndarray, index: np.ndarray) -> list[Hashable | None]:
    """The labels of the annotations ``index`` (MISSING where there is none) as a list with None for missing."""
    safe = np.maximum(index, 0)
    if codes.dtype == object:
        picked = codes[safe] if codes.size else np.empty(len(index), dtype=object)
        picked[index < 0] = None
        return picked.tolist()
    picked = codes[safe] if codes.size else np.full(len(index), MISSING, dtype=np.int64)
    picked[index < 0] = MISSING
    return [None if v < 0 else v for v in picked.tolist()]


class Scope:
    """The issues and raters a view covers: ``matrix[r, c]`` is rater r's annotation of issue c (or MISSING).

    The two-rater slots are each issue's first two raters by id, or the pair given.
    """

    def __init__(self, ann: Annotations, *, round_number: int | None, pair: tuple[int, int] | None):
        keep = ann.known.copy()
        if round_number is not None:
            keep &= ann.round == round_number
        if pair is not None:
            keep &= np.isin(ann.rater, pair)
        index = np.nonzero(keep)[0]
        self.columns, col = np.unique(ann.si[index], return_inverse=True)
        raters = np.unique(ann.rater[index])
        self.raters: list[int] = raters.tolist()
        self.matrix = np.full((len(raters), len(self.columns)), MISSING, dtype=np.int64)
        self.matrix[np.searchsorted(raters, ann.rater[index]), col] = index
        present = self.matrix >= 0
        both = present.sum(axis=0) >= 2
        cols = np.arange(len(self.columns))
        first = np.argmax(present, axis=0) if len(raters) else np.zeros(0, dtype=np.int64)
        second = np.argmax(present & (np.cumsum(present, axis=0) == 2), axis=0) if len(raters) else first
        self.first = np.where(both, self.matrix[first, cols], MISSING) if len(raters) else first
        self.second = np.where(both, self.matrix[second, cols], MISSING) if len(raters) else first

    @cached_property
    def column_list(self) -> list[int]:
        return self.columns.tolist()

    def rows(self, codes: np.ndarray) -> tuple[list[list], list[list]]:
        """(pair rows, every rater's row) of labels for the measures."""
        pair = [take(codes, self.first), take(codes, self.second)]
        return pair, [take(codes, self.matrix[r]) for r in range(len(self.raters))]

    def shared(self) -> dict[tuple[int, int], int]:
        """Issues each pair of raters both labelled."""
        present = self.matrix >= 0
        out = {}
        for i in range(len(self.raters)):
            for j in range(i + 1, len(self.raters)):
                n = int((present[i] & present[j]).sum())
                if n:
                    out[(self.raters[i], self.raters[j])] = n
        return out
