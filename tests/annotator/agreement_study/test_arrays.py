"""Encoding labels into integers once per dimension and level (pure: no database)."""

import numpy as np
import pytest

from annotator.selectors.agreement import CategoryInfo, DimensionInfo, LabelLayer, StudyLabels
from annotator.services.agreement import arrays
from annotator.services.agreement.arrays import EXCLUDED_CODE, MISSING, Entries
from annotator.services.agreement.compute import _Dimension, _Tree

# Dimension 1 ("fix", multi-valued): roots 10 and 20, leaves 11 (under 10) and 21, 22 (under 20).
CATEGORIES = {
    10: CategoryInfo(10, 1, None, "A", 1),
    11: CategoryInfo(11, 1, 10, "A.1", 1),
    20: CategoryInfo(20, 1, None, "B", 2),
    21: CategoryInfo(21, 1, 20, "B.1", 1),
    22: CategoryInfo(22, 1, 20, "B.2", 2),
}


def labels(*, multi: bool) -> StudyLabels:
    """Four annotations: {11, 21}, {22}, excluded (with a value that must not count), nothing; one resolution
    {21} and one pending."""
    info = DimensionInfo(1, "fix", "Fix", multi, [], {}, 1)
    return StudyLabels(
        [info],
        CATEGORIES,
        [(1, "main")],
        {},
        first=LabelLayer(
            si=np.array([1, 1, 2, 2]),
            rater=np.array([7, 8, 7, 8]),
            round=np.array([1, 1, 1, 1]),
            excluded=np.array([False, False, True, False]),
            val_row=np.array([0, 0, 1, 2]),
            val_dim=np.array([1, 1, 1, 1]),
            val_cat=np.array([11, 21, 22, 11]),
        ),
        res_si=np.array([1, 2]),
        res_excluded=np.array([False, False]),
        res_values=[{"fix": [21]}, {}],
    )


def decode(codes, sets):
    return [None if c == MISSING else (sets[c] if sets is not None else c) for c in codes.tolist()]


@pytest.mark.parametrize("bits", [arrays.BITS, 0])  # 0: the path for dimensions too wide for a bit mask
def test_label_sets_per_level(monkeypatch, bits):
    monkeypatch.setattr(arrays, "BITS", bits)
    data = labels(multi=True)
    entries = Entries(data, {"fix": 1})
    dim = _Dimension(data.dimensions[0], _Tree(CATEGORIES, 1), issue_type=False)
    assert decode(*entries.codes(dim, 2)) == [
        frozenset({11, 21}),
        frozenset({22}),
        None,
        None,  # no category of the dimension: no answer, as in a single-valued dimension (not the empty set)
        frozenset({21}),
        None,
    ]
    assert decode(*entries.codes(dim, 1)) == [
        frozenset({10, 20}),
        frozenset({20}),
        None,
        None,
        frozenset({20}),
        None,
    ]


def test_an_excluded_issue_counts_as_its_own_category_in_an_issue_type_dimension():
    data = labels(multi=True)
    dim = _Dimension(data.dimensions[0], _Tree(CATEGORIES, 1), issue_type=True)
    assert decode(*Entries(data, {"fix": 1}).codes(dim, 2))[2] == frozenset({EXCLUDED_CODE})


def test_single_values_per_level():
    data = labels(multi=False)
    entries = Entries(data, {"fix": 1})
    dim = _Dimension(data.dimensions[0], _Tree(CATEGORIES, 1), issue_type=False)
    assert decode(*entries.codes(dim, 2)) == [11, 22, None, None, 21, None]  # the smallest id if ever several
    assert decode(*entries.codes(dim, 1)) == [10, 20, None, None, 20, None]
