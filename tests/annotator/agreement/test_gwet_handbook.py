"""Gwet's AC1 with missing ratings, as in Gwet's Handbook of Inter-Rater Reliability (4th ed., 2014).

Percent agreement over the items rated by at least two raters; chance agreement from each category's share
over every item rated by at least one. The data and the expected values (three decimals) are the handbook's
examples as published with irrCAC, Gwet's reference implementation (its test suite: pa, pe, AC1).
"""

import pytest

from annotator.agreement import gwet_ac1
from annotator.agreement.gwet import item_agreement

# Ben and Gerry: two raters, twelve units, Gerry did not rate unit 10 (Ben rated it "d").
BEN = ["a", "a", "b", "b", "d", "c", "c", "c", "e", "d", "d", "a"]
GERRY = ["b", "a", "b", "b", "b", "c", "c", "c", "e", None, "d", "d"]

# Four raters, fourteen units in two groups (the handbook's "g1g2" data), none rated every unit.
G1G2 = [
    ["a", "b", "c", "c", "b", "a", "d", "a", "b", None, None, None, "b", "b"],
    ["a", "b", "c", "c", "b", "b", "d", "a", "b", "e", None, None, "b", "a"],
    [None, "c", "c", "c", "b", "c", "d", "b", "b", "e", "a", "c", "c", "c"],
    ["a", "b", "c", "c", "b", "d", "d", "a", "b", "e", "a", None, "b", "b"],
]

# Five observers, fifteen units on a 0-3 scale (handbook p. 125, shortened); only observer 3 rated them all.
FIVE = [
    [1, 1, 2, None, 0, 0, 1, 1, 2, 2, None, 0, 1, 3, 1],
    [1, 1, 3, 0, 0, 0, 0, None, 2, 1, 1, 0, 2, 3, 1],
    [2, 0, 3, 0, 0, 0, 2, 2, 2, 1, 0, 0, 2, 2, 1],
    [None, 1, 3, None, None, None, None, 0, None, 1, 0, 0, 2, 2, None],
    [2, None, None, 0, 0, 0, 1, None, 2, None, None, None, None, 3, 1],
]


@pytest.mark.parametrize(
    ("data", "ac1"),
    [([BEN, GERRY], 0.661), (G1G2, 0.685), (FIVE, 0.497)],
    ids=["two raters (Ben and Gerry)", "four raters (g1g2)", "five observers"],
)
def test_ac1_matches_the_handbook(data, ac1):
    assert round(gwet_ac1(data), 3) == ac1


def test_two_raters_count_a_lone_rating_in_chance_agreement_only():
    from annotator.agreement._input import encode

    # p_a over the 11 units both rated: 8 agree.
    assert item_agreement(encode([BEN, GERRY], "gwet_ac1")) == pytest.approx(8 / 11)
    # Leaving unit 10 out altogether (complete pairs) gives another, non-handbook value.
    complete = [[b for b, g in zip(BEN, GERRY, strict=True) if g is not None], [g for g in GERRY if g is not None]]
    assert round(gwet_ac1(complete), 3) != 0.661
