"""The pilot gate: a study leaves its pilot when agreement reaches its threshold on every dimension,
or when its owner overrides the gate with a written reason (kept, with the figures, in PhaseChange)."""

import math
from typing import Any

from django.core.cache import cache
from django.db import transaction

from annotator.models import PhaseChange, Study
from annotator.permissions import can_manage_study
from annotator.selectors.agreement import labels_version
from core.errors import DomainError, PermissionDeniedError

from .report import CACHE_SECONDS, agreement_report, report_cache_key

MEASURE_NAMES = {"kappa": "kappa", "alpha_masi": "alpha (MASI)"}


def _gate_round(report: dict) -> int | None:
    """The latest pilot round: agreement after the last revision of the guidelines is what counts."""
    pilots = [r["number"] for r in report["rounds"] if r["kind"] == "pilot"]
    return max(pilots) if pilots else None


def agreement_gate(*, study: Study, version: str | None = None) -> dict[str, Any]:
    """Each dimension's gate measure (kappa; alpha with MASI for multi-valued ones) against the threshold.

    From the raters' first, independent submissions (the report's "before discussion" figures): labels revised
    after a send-back cannot open the gate.

    Measured on the latest pilot round, or on every issue when the study has no pilot round. An undefined
    value (no issue labelled by both raters, a single category throughout...) does not pass.
    """
    threshold = float(study.agreement_threshold)
    version = version or labels_version(study=study)
    key = f"{report_cache_key(study=study, version=version)}:gate:{threshold}"
    cached = cache.get(key)
    if cached is not None:
        return cached
    round_number = _gate_round(agreement_report(study=study, version=version))
    report = agreement_report(study=study, round_number=round_number, version=version)
    dimensions = []
    for d in report["dimensions"]:
        row = d["summary"]
        value = row["gate_value"]
        dimensions.append(
            {
                "key": d["key"],
                "name": d["name"],
                "measure": row["gate_measure"],
                "measure_name": MEASURE_NAMES[row["gate_measure"]],
                "value": value,
                "n": row["n"],
                "n_left_out": row.get("n_left_out", 0),
                "left_out": row.get("left_out", {}),
                "passed": value is not None and not math.isnan(value) and value >= threshold - 1e-12,
                "undefined": row["undefined"],
            }
        )
    failing = [d for d in dimensions if not d["passed"]]
    gate = {
        "basis": report.get("before_label", ""),
        "threshold": threshold,
        "round": round_number,
        "passed": bool(dimensions) and not failing,
        "dimensions": dimensions,
        "failing": [d["name"] for d in failing],
        "labels_version": report["labels_version"],
    }
    cache.set(key, gate, CACHE_SECONDS)
    return gate


def gate_refusal(gate: dict) -> str:
    """The message that says which dimensions hold the study in its pilot, and what to do about it."""
    if not gate["dimensions"]:
        return "This study labels no dimensions, so its agreement cannot be measured."
    parts = []
    for d in gate["dimensions"]:
        if d["passed"]:
            continue
        shown = "undefined" if d["value"] is None else f"{d['value']:.2f}"
        parts.append(f"{d['name']} ({d['measure_name']} {shown}, n={d['n']})")
    where = f"round {gate['round']}" if gate["round"] is not None else "the labelled issues"
    return (
        f"Independent agreement (first submissions) on {where} is below the threshold {gate['threshold']:.2f} "
        f"on: {', '.join(parts)}. "
        "Discuss the disagreements, sharpen the guidelines and label more pilot issues, "
        "or leave the pilot anyway with a written reason."
    )


@transaction.atomic
def study_leave_pilot(
    *, study: Study, actor, override_reason: str | None = None, to_phase: str = Study.Phase.LABELLING
) -> PhaseChange:
    """Move the study out of its pilot if the gate passes, or with the owner's written reason if it does not."""
    if not can_manage_study(actor, study):
        raise PermissionDeniedError("Only the study's owner can end its pilot.")
    locked = Study.objects.select_for_update().get(pk=study.pk)
    if locked.phase != Study.Phase.PILOT:
        raise DomainError(f"The study is in its {locked.get_phase_display().lower()} phase, not in the pilot.")
    if to_phase not in Study.Phase.values or to_phase == Study.Phase.PILOT:
        raise DomainError(f"'{to_phase}' is not a phase to move to from the pilot.", field="phase")
    gate = agreement_gate(study=locked)
    reason = (override_reason or "").strip()
    if not gate["passed"] and not reason:
        raise DomainError(gate_refusal(gate), field="override_reason")
    locked.phase = to_phase
    locked.save(update_fields=["phase", "updated_at"])
    study.phase = to_phase
    return PhaseChange.objects.create(
        study=locked,
        from_phase=Study.Phase.PILOT,
        to_phase=to_phase,
        actor=actor,
        overridden=not gate["passed"],
        reason=reason,
        figures=gate,
    )
