"""Medians, quartiles and the share of small fixes, as R and pandas compute them."""

import pytest

from annotator.findings.summaries import share_at_most, summarise


def test_quartiles_interpolate_like_rs_default_type_7():
    # R: quantile(c(1, 2, 3, 4, 10), c(.25, .5, .75)) gives 2, 3, 4; with 6 values 1..6: 2.25, 3.5, 4.75.
    five = summarise([10, 1, 3, 2, 4])
    assert (five.q1, five.median, five.q3) == (2, 3, 4)
    six = summarise([1, 2, 3, 4, 5, 6])
    assert (six.q1, six.median, six.q3) == (2.25, 3.5, 4.75)
    assert six.iqr == pytest.approx(2.5) and (six.minimum, six.maximum) == (1, 6)


def test_missing_values_are_left_out_and_nothing_is_none():
    summary = summarise([None, float("nan"), 4])
    assert summary.n == 1 and summary.median == 4
    empty = summarise([])
    assert empty.n == 0 and empty.median is None and empty.iqr is None


def test_the_share_of_fixes_of_at_most_ten_lines():
    assert share_at_most([1, 10, 11, 200, None]) == 50.0
    assert share_at_most([]) is None
