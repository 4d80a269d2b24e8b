"""Inter-rater agreement measures: pure Python + numpy/scipy/statsmodels/krippendorff, no Django.

``data`` is always a list of rater rows of equal length (one column per item) with ``None`` where a rater did
not label an item; labels are any hashable values; ``categories``, when given, is the full ordered category list.
Two-rater measures use the items both raters labelled. Malformed input raises ValueError; a measure that is
undefined on the data (no items, one category, ...) returns NaN and ``why_undefined`` tells why.
Chance-corrected measures lie in [-1, 1]; ``cohen_kappa_ci`` clips its Wald interval to that range (and says so),
while a percentile ``bootstrap_ci`` lies inside it by construction.

Who computes what:
- Cohen's kappa (plain and weighted) and its SE/CI: statsmodels ``cohens_kappa``.
- Fleiss' kappa: statsmodels ``fleiss_kappa``.
- Krippendorff's alpha (nominal/ordinal/interval/ratio, custom distance): the ``krippendorff`` package on
  small inputs, a vectorised coincidence matrix above ``alpha.PACKAGE_MAX_CELLS`` (the package's memory grows
  with units x values^2).
- Hand-written: percent agreement, Scott's pi, Bennett's S, Gwet's AC1, MASI, the bootstrap, the tables.
"""

from ._input import AgreementUndefined
from ._registry import why_undefined
from .alpha import krippendorff_alpha
from .bootstrap import BootstrapResult, bootstrap_ci
from .gwet import gwet_ac1
from .intervals import CHANCE_CORRECTED_RANGE, clip_interval
from .kappa import (
    KappaCI,
    bennett_s,
    cohen_kappa,
    cohen_kappa_ci,
    fleiss_kappa,
    fleiss_kappa_from_counts,
    percent_agreement,
    scott_pi,
)
from .sets import krippendorff_alpha_masi, masi_distance
from .tables import CategoryAgreement, confusion_matrix, landis_koch_band, per_category_agreement

__all__ = [
    "CHANCE_CORRECTED_RANGE",
    "AgreementUndefined",
    "BootstrapResult",
    "CategoryAgreement",
    "KappaCI",
    "bennett_s",
    "bootstrap_ci",
    "clip_interval",
    "cohen_kappa",
    "cohen_kappa_ci",
    "confusion_matrix",
    "fleiss_kappa",
    "fleiss_kappa_from_counts",
    "gwet_ac1",
    "krippendorff_alpha",
    "krippendorff_alpha_masi",
    "landis_koch_band",
    "masi_distance",
    "per_category_agreement",
    "percent_agreement",
    "scott_pi",
    "why_undefined",
]
