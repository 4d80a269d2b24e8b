"""ascii_int: whole numbers from outside are ASCII digits, bounded in length; anything else is None."""

import pytest

from core.numbers import MAX_DIGITS, ascii_int


@pytest.mark.parametrize(("text", "number"), [("0", 0), ("7", 7), ("0042", 42), ("9" * 18, 10**18 - 1)])
def test_ascii_digits_are_read(text, number):
    assert ascii_int(text) == number


@pytest.mark.parametrize(
    "text",
    [
        None,
        "",
        "²",  # str.isdigit() is True, int() raises
        "١",  # Arabic-Indic one: str.isdigit() is True, int() reads 1
        "𝟙",  # mathematical double-struck one: the same
        "1²",
        "-1",
        "+1",
        "1.0",
        "1e3",
        " 1",
        "1\n",
        "1_000",
        "9" * 19,
        "1" * 5000,  # past int()'s limit on digits: refused by length, never a ValueError
    ],
)
def test_anything_else_is_none(text):
    assert ascii_int(text) is None


def test_the_bound_is_the_number_of_digits():
    assert ascii_int("123456789", max_digits=9) == 123456789
    assert ascii_int("1234567890", max_digits=9) is None
    assert ascii_int("0" * MAX_DIGITS) == 0
