"""Look a measure up by function or name, and ask why it is undefined on some data."""

from __future__ import annotations

import functools
from collections.abc import Callable

from . import alpha, gwet, kappa, sets
from ._input import AgreementUndefined, MeasureSpec

SPECS: dict[str, MeasureSpec] = {spec.name: spec for mod in (kappa, gwet, alpha, sets) for spec in mod.SPECS}
FUNCTIONS: dict[Callable, MeasureSpec] = {
    kappa.percent_agreement: SPECS["percent_agreement"],
    kappa.cohen_kappa: SPECS["cohen_kappa"],
    kappa.scott_pi: SPECS["scott_pi"],
    kappa.bennett_s: SPECS["bennett_s"],
    kappa.fleiss_kappa: SPECS["fleiss_kappa"],
    gwet.gwet_ac1: SPECS["gwet_ac1"],
    alpha.krippendorff_alpha: SPECS["krippendorff_alpha"],
    sets.krippendorff_alpha_masi: SPECS["krippendorff_alpha_masi"],
}


def resolve(measure: object) -> tuple[MeasureSpec | None, dict]:
    """(spec, keyword arguments bound by functools.partial); spec is None for a callable we do not know."""
    bound: dict = {}
    while isinstance(measure, functools.partial) and not measure.args:
        bound = {**measure.keywords, **bound}
        measure = measure.func
    if isinstance(measure, str):
        if measure not in SPECS:
            raise ValueError(f"unknown measure {measure!r}; expected one of {', '.join(sorted(SPECS))}")
        return SPECS[measure], bound
    if not callable(measure):
        raise ValueError(f"measure must be one of the agreement functions, its name, or a callable; got {measure!r}")
    try:
        return FUNCTIONS.get(measure), bound
    except TypeError:  # an unhashable callable
        return None, bound


def why_undefined(measure: str | Callable, data: object, **kwargs: object) -> AgreementUndefined | None:
    """Why ``measure(data, **kwargs)`` is NaN, or None when it is defined.

    ``measure`` is a measure's name ("cohen_kappa", "krippendorff_alpha", ...) or the function itself.
    Malformed input still raises ValueError, as the measure would.
    """
    spec, bound = resolve(measure)
    if spec is None:
        raise ValueError(f"why_undefined knows only the package's measures ({', '.join(sorted(SPECS))})")
    return spec.compute(spec.prepare(data, **{**bound, **kwargs}))[1]
