"""Text colours in the stylesheets reach WCAG AA contrast (4.5:1) on the backgrounds they are drawn on.

axe checks the pages the browser tests open; these checks cover every shade, including heatmap shades that only
a large study reaches.
"""

import re
from pathlib import Path

import pytest
from django.conf import settings

CSS = Path(settings.BASE_DIR) / "static" / "css"
AA = 4.5
DARK_INK, WHITE = "#0b1b33", "#ffffff"


def relative_luminance(colour: str) -> float:
    """WCAG 2.1's relative luminance of a #rrggbb colour."""
    channels = [int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(a: str, b: str) -> float:
    light, dark = sorted((relative_luminance(a), relative_luminance(b)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def _variables() -> dict[str, str]:
    root = re.search(r":root\s*\{(.*?)\}", (CSS / "app.css").read_text(), re.S).group(1)
    return dict(re.findall(r"--([a-z0-9-]+):\s*(#[0-9a-f]{6})\s*;", root))


def _heat_shades() -> list[tuple[str, str, str]]:
    rule = re.compile(r"\.heat-(\d+)\s*\{\s*background:\s*(#[0-9a-f]{6});\s*color:\s*(#[0-9a-f]{3,6});\s*\}")
    return [(f"heat-{n}", bg, ink) for n, bg, ink in rule.findall((CSS / "agreement.css").read_text())]


def _full(colour: str) -> str:
    return "#" + "".join(c * 2 for c in colour[1:]) if len(colour) == 4 else colour


def test_the_contrast_formula_matches_wcag():
    assert contrast("#000000", "#ffffff") == pytest.approx(21.0)
    assert contrast("#767676", "#ffffff") == pytest.approx(4.54, abs=0.01)


def test_every_heatmap_shade_has_its_higher_contrast_ink_and_reaches_aa():
    shades = _heat_shades()
    assert len(shades) == 10, "expected the ten heat-N shades, each with a background and a text colour"
    for name, background, ink in shades:
        best = max((DARK_INK, WHITE), key=lambda candidate: contrast(candidate, background))
        assert _full(ink) == best, f".{name}: {ink} on {background}; {best} has the higher contrast"
        assert contrast(_full(ink), background) >= AA, f".{name}: {ink} on {background} is below {AA}:1"


@pytest.mark.parametrize("text", ["text", "muted", "faint", "accent"])
@pytest.mark.parametrize("surface", ["bg", "surface", "surface-2", "accent-soft", "warn-soft", "ok-soft", "bad-soft"])
def test_text_colours_reach_aa_on_every_surface(text, surface):
    colours = _variables()
    ratio = contrast(colours[text], colours[surface])
    assert ratio >= AA, f"--{text} {colours[text]} on --{surface} {colours[surface]}: {ratio:.2f}:1 < {AA}:1"
