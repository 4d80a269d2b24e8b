"""Whole numbers read from outside (query strings, form fields, HTTP headers, imported files).

``str.isdigit`` is not the test for them: it is True for "²", "١" (Arabic-Indic one) and "𝟙", where
``int`` raises on the first and quietly reads the others as 1. ``ascii_int`` accepts only ASCII digits,
and only so many of them, so a value from outside never reaches ``int`` in a form it refuses and never
becomes a number no database column holds.
"""

MAX_DIGITS = 18  # every number of 18 digits fits a signed 64-bit column


def ascii_int(text: str | None, *, max_digits: int = MAX_DIGITS) -> int | None:
    """``text`` as a whole number when it is 1 to ``max_digits`` ASCII digits (no sign, no spaces), else None."""
    if text is None or not 0 < len(text) <= max_digits or not (text.isascii() and text.isdigit()):
        return None
    return int(text)
