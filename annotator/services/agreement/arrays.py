"""The study's labels as numpy arrays, and the rater-by-issue matrices of a scope (pure, no Django).

At 100,000 doubly-labelled issues any Python step per label is what costs: here the annotations (and,
after them, the resolutions) are "entries" of parallel arrays, every dimension and taxonomy level is
encoded once into one integer per entry, and a scope (a round, a pair) is a matrix of entry indices,
so each view of the report is a few numpy indexing steps.
"""

from __future__ import annotations

from functools import cached_property

import numpy as np

EXCLUDED_CODE = 0  # category ids start at 1, so 0 can stand for "(excluded)"
MISSING = -1
BITS = 62  # label sets of up to this many distinct categories are encoded as bit masks


class Entries:
    """The submissions of one layer (entries 0..n-1) then every resolution (entries n..n+m-1).

    ``labels`` is a ``StudyLabels``; ``layer`` one of its label layers (``labels.first``, the first
    submissions, by default; ``labels.revised``, the annotations as they are now). Only a resolved final label
    counts: a resolution still pending or sent back has no decided dimension here.
    """

    def __init__(self, labels, dimension_keys: dict[str, int], layer=None):
        layer = labels.first if layer is None else layer
        self.n = len(layer.si)
        self.si = layer.si
        self.rater = layer.rater
        self.round = layer.round
        self.known = np.ones(self.n, dtype=bool)
        self.res_si = labels.res_si
        m = len(self.res_si)
        self.size = self.n + m
        self.res_resolved = np.asarray(labels.res_resolved, dtype=bool)
        self.excluded = np.concatenate([layer.excluded, labels.res_excluded & self.res_resolved]).astype(bool)
        # Proposals of a new category instead of a choice, per dimension: the entries that made one.
        self.proposed: dict[int, np.ndarray] = {}
        for row, pk in zip(layer.proposed_row.tolist(), layer.proposed_dim.tolist(), strict=True):
            self.proposed.setdefault(pk, np.zeros(self.size, dtype=bool))[row] = True
        # A resolution lists only the dimensions already decided; the others are pending (missing).
        rows, dims, cats, decided = [], [], [], []
        for i, values in enumerate(labels.res_values):
            if not self.res_resolved[i]:
                continue
            for key, ids in values.items():
                pk = dimension_keys.get(key)
                if pk is None:
                    continue
                decided.append((i, pk))
                for category in ids or ():
                    rows.append(self.n + i)
                    dims.append(pk)
                    cats.append(int(category))
        self.decided: dict[int, np.ndarray] = {}
        for i, pk in decided:
            self.decided.setdefault(pk, np.zeros(m, dtype=bool))[i] = True
        self.val_row = np.concatenate([layer.val_row, np.asarray(rows, dtype=np.int64)])
        self.val_dim = np.concatenate([layer.val_dim, np.asarray(dims, dtype=np.int64)])
        self.val_cat = np.concatenate([layer.val_cat, np.asarray(cats, dtype=np.int64)])
        self._codes: dict[tuple[int, int], tuple[np.ndarray, list | None]] = {}

    def proposals(self, pk: int) -> np.ndarray:
        """Per entry: True where the rater proposed a new category for the dimension."""
        return self.proposed.get(pk, np.zeros(self.size, dtype=bool))

    def _undecided(self, pk: int) -> np.ndarray:
        """Entries with no label of the dimension: resolutions where it is still pending."""
        out = np.zeros(self.size, dtype=bool)
        pending = ~self.decided.get(pk, np.zeros(self.size - self.n, dtype=bool))
        out[self.n :] = pending & ~self.excluded[self.n :]
        return out

    def codes(self, dim, level: int) -> tuple[np.ndarray, list | None]:
        """Per entry: the label at ``level`` as an integer, MISSING where there is none; for a set-valued
        dimension the integer indexes the returned list of label sets (frozensets), else it is the category id
        (EXCLUDED_CODE for an excluded entry of an issue-type dimension).

        An entry with no category of the dimension is MISSING in both kinds of dimension: the label sets are
        never empty, so an issue a rater left unlabelled drops out of the dimension's agreement and its n."""
        key = (dim.info.pk, level)
        if key not in self._codes:
            self._codes[key] = self._sets(dim, level) if dim.multi else self._single(dim, level)
        return self._codes[key]

    def _rows_of(self, pk: int) -> tuple[np.ndarray, np.ndarray]:
        mask = self.val_dim == pk
        return self.val_row[mask], self.val_cat[mask]

    def _single(self, dim, level: int) -> tuple[np.ndarray, None]:
        rows, cats = self._rows_of(dim.info.pk)
        first = np.full(self.size, np.iinfo(np.int64).max, dtype=np.int64)
        np.minimum.at(first, rows, cats)  # a single-valued dimension holds one id; the smallest if ever more
        codes = np.where(first == np.iinfo(np.int64).max, MISSING, first)
        labelled = codes > 0
        codes[labelled] = dim.tree.map(codes[labelled], level)
        codes[self.excluded] = EXCLUDED_CODE if dim.issue_type else MISSING
        codes[self._undecided(dim.info.pk)] = MISSING
        return codes, None

    def _sets(self, dim, level: int) -> tuple[np.ndarray, list]:
        rows, cats = self._rows_of(dim.info.pk)
        keep = ~self.excluded[rows]  # an excluded entry's values do not count
        rows, cats = rows[keep], dim.tree.map(cats[keep], level)
        if dim.issue_type:
            excluded = np.flatnonzero(self.excluded)
            rows = np.concatenate([rows, excluded])
            cats = np.concatenate([cats, np.full(len(excluded), EXCLUDED_CODE, dtype=np.int64)])
        # No category of the dimension is no answer (a blank, "PENDING", a proposal instead of a choice), as in
        # _single: the entry is missing, not the empty set. An excluded entry of an issue-type dimension has the
        # set {EXCLUDED_CODE}; of any other dimension, no value left.
        answered = np.zeros(self.size, dtype=bool)
        answered[rows] = True
        missing = self._undecided(dim.info.pk) | ~answered
        if not dim.issue_type:
            missing |= self.excluded
        members, dense = np.unique(cats, return_inverse=True)
        if len(members) <= BITS:
            masks = np.zeros(self.size, dtype=np.int64)
            np.bitwise_or.at(masks, rows, np.left_shift(1, dense.astype(np.int64)))
            keys = masks
        else:  # very wide dimensions: one Python tuple per entry
            order = np.lexsort((dense, rows))
            by_entry: dict[int, list[int]] = {}
            for row, d in zip(rows[order].tolist(), dense[order].tolist(), strict=True):
                by_entry.setdefault(row, []).append(d)
            table = {(): 0}
            keys = np.zeros(self.size, dtype=np.int64)
            for row, ds in by_entry.items():
                keys[row] = table.setdefault(tuple(sorted(set(ds))), len(table))
            masks = None
        present = np.flatnonzero(~missing)
        distinct, inverse = np.unique(keys[present], return_inverse=True)
        codes = np.full(self.size, MISSING, dtype=np.int64)
        codes[present] = inverse
        member_list = members.tolist()
        if masks is not None:
            sets = [frozenset(member_list[b] for b in range(len(member_list)) if (int(k) >> b) & 1) for k in distinct]
        else:
            by_key = {v: k for k, v in table.items()}
            sets = [frozenset(member_list[d] for d in by_key[int(k)]) for k in distinct]
        return codes, sets


def take(codes: np.ndarray, index: np.ndarray) -> np.ndarray:
    """The labels of the entries ``index`` (MISSING where the index is)."""
    if not codes.size:
        return np.full(len(index), MISSING, dtype=np.int64)
    return np.where(index >= 0, codes[np.maximum(index, 0)], MISSING)


class Scope:
    """The issues and raters a view covers: ``matrix[r, c]`` is rater r's annotation of issue c (or MISSING).

    The two-rater slots are each issue's first two raters by id, or the pair given.
    """

    def __init__(self, ann: Entries, *, round_number: int | None, pair: tuple[int, int] | None):
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
        # Each issue's first submission in the scope, even when no second rater has submitted yet.
        self.lead = self.matrix[first, cols] if len(raters) else first
        self.count = present.sum(axis=0)

    @cached_property
    def column_list(self) -> list[int]:
        return self.columns.tolist()

    def rows(self, codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(the pair's two rows, every rater's row) of labels: (2, issues) and (raters, issues) arrays."""
        pair = np.vstack([take(codes, self.first), take(codes, self.second)])
        every = np.vstack([take(codes, row) for row in self.matrix]) if len(self.raters) else np.empty((0, 0))
        return pair, every.astype(np.int64)

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
