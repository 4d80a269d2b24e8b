"""GET /api/v1/studies/{id}/agreement/: the study's agreement report as JSON, or as CSV with ?format=csv."""

import re
from collections.abc import Iterable

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.permissions import IsAuthenticated
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotator.exports.safe_csv import csv_rows
from annotator.models import Study
from core.numbers import ascii_int

# Parts of the report that show which issues the raters disagreed on: only for those who see every label.
FULL_ONLY = ("per_pair", "confusion", "per_category")


class AgreementCsvRenderer(BaseRenderer):
    """The report's flat table (TABLE_COLUMNS), every cell guarded against spreadsheet formulas."""

    media_type = "text/csv"
    format = "csv"
    charset = "utf-8"

    def render(self, data, accepted_media_type=None, renderer_context=None) -> bytes:
        from annotator.services.agreement import TABLE_COLUMNS  # see get()

        if isinstance(data, dict) and "error" in data:  # an error body: say it in one cell
            rows: Iterable = [[data["error"].get("message", "error")]]
            return "".join(csv_rows(["error"], rows)).encode()
        return "".join(csv_rows(TABLE_COLUMNS, data)).encode()


class _LeftOut(serializers.Serializer):
    one_rater = serializers.IntegerField(required=False, help_text="Labelled by one rater only so far.")
    no_final_label = serializers.IntegerField(required=False, help_text="No final label yet (against the final).")
    excluded = serializers.IntegerField(required=False, help_text="Excluded by a rater (not a bug, out of scope).")
    proposal = serializers.IntegerField(required=False, help_text="A new category proposed instead of a choice.")
    missing_label = serializers.IntegerField(required=False, help_text="No category chosen for the dimension.")


class _Bootstrap(serializers.Serializer):
    measure = serializers.CharField()
    estimate = serializers.FloatField(allow_null=True)
    low = serializers.FloatField(allow_null=True)
    high = serializers.FloatField(allow_null=True)
    level = serializers.FloatField()
    n_resamples = serializers.IntegerField()
    seed = serializers.IntegerField()
    note = serializers.CharField()


class _Row(serializers.Serializer):
    n = serializers.IntegerField(help_text="Issues both raters labelled (the n of kappa).")
    n_left_out = serializers.IntegerField(help_text="Issues of the scope this figure leaves out.")
    left_out = _LeftOut(help_text="How many issues are left out for each reason (absent reasons are omitted).")
    percent = serializers.FloatField(allow_null=True, help_text="Observed agreement (exact set for multi-valued).")
    exact_set = serializers.FloatField(allow_null=True)
    kappa = serializers.FloatField(allow_null=True, help_text="Cohen's kappa; null when undefined or multi-valued.")
    se = serializers.FloatField(allow_null=True, help_text="Fleiss-Cohen-Everitt standard error of kappa.")
    low = serializers.FloatField(allow_null=True, help_text="95% interval, lower end.")
    high = serializers.FloatField(allow_null=True, help_text="95% interval, upper end.")
    ci_clipped = serializers.BooleanField(
        allow_null=True,
        help_text="True when the Wald interval went past kappa's range and was clipped to -1..1; null without one.",
    )
    alpha = serializers.FloatField(allow_null=True, help_text="Krippendorff's alpha (MASI for multi-valued).")
    ac1 = serializers.FloatField(allow_null=True, help_text="Gwet's AC1.")
    band = serializers.CharField(help_text="Landis & Koch band.")
    gate_measure = serializers.ChoiceField(choices=["kappa", "alpha_masi"])
    gate_value = serializers.FloatField(allow_null=True)
    undefined = serializers.CharField(help_text="Why the measure is undefined; empty when it is defined.")
    ci_estimable = serializers.BooleanField(
        help_text="False when there is no analytic interval: kappa undefined, or an interval of zero width "
        "(every issue agreed, one category); low and high are then null."
    )
    ci_note = serializers.CharField(help_text='Why the interval is "not estimable"; empty when it is.')
    bootstrap = _Bootstrap(many=True, required=False, help_text="Seeded percentile bootstrap intervals (?bootstrap=1).")


class _LevelRow(_Row):
    level = serializers.IntegerField()
    name = serializers.CharField()


class _PairRow(_Row):
    pair = serializers.CharField()
    names = serializers.ListField(child=serializers.CharField())


class _AfterRow(_Row):
    rater = serializers.IntegerField(allow_null=True, help_text="Null when raters are shown by pseudonym.")
    name = serializers.CharField()


class _After(serializers.Serializer):
    available = serializers.BooleanField(help_text="False until some issue has a final label.")
    resolved = serializers.IntegerField(help_text="Issues in scope with a final label.")
    rows = _AfterRow(many=True, help_text="Each rater's revised labels against the final label.")
    revised = _Row(help_text="After discussion: rater against rater on the revised labels.")


class _Cell(serializers.Serializer):
    count = serializers.IntegerField()
    heat = serializers.IntegerField(help_text="0-9, the shade of the cell on the page.")


class _ConfusionRow(serializers.Serializer):
    category = serializers.CharField()
    cells = _Cell(many=True)


class _Confusion(serializers.Serializer):
    categories = serializers.ListField(child=serializers.CharField())
    rows = _ConfusionRow(many=True)


class _Category(serializers.Serializer):
    category = serializers.CharField()
    kappa = serializers.FloatField(allow_null=True)
    specific_agreement = serializers.FloatField(allow_null=True)
    n_first = serializers.IntegerField()
    n_second = serializers.IntegerField()
    n_both = serializers.IntegerField()


class _TrendPoint(serializers.Serializer):
    round = serializers.IntegerField()
    value = serializers.FloatField(allow_null=True)
    n = serializers.IntegerField()


class _Dimension(serializers.Serializer):
    key = serializers.CharField()
    name = serializers.CharField()
    multi_valued = serializers.BooleanField()
    issue_type = serializers.BooleanField()
    depth = serializers.IntegerField()
    detail_level = serializers.IntegerField()
    detail_level_name = serializers.CharField()
    summary = _LevelRow()
    levels = _LevelRow(many=True)
    per_pair = _PairRow(many=True, required=False)
    confusion = _Confusion(required=False)
    per_category = _Category(many=True, required=False)
    after = _After()
    trend = _TrendPoint(many=True)


class _Filters(serializers.Serializer):
    round = serializers.IntegerField(allow_null=True)
    pair = serializers.CharField(allow_null=True)
    level = serializers.IntegerField(allow_null=True)


class _Round(serializers.Serializer):
    number = serializers.IntegerField()
    kind = serializers.CharField()


class _Subset(serializers.Serializer):
    issues = serializers.IntegerField(help_text="Issues in the study.")
    double_coded = serializers.IntegerField(help_text="Issues in the reliability subset (labelled by every rater).")
    partial = serializers.BooleanField(
        help_text="True when some issues are single-coded: the figures are computed on the double-coded ones only."
    )
    text = serializers.CharField(help_text='"computed on 61 double-coded issues of 305" when partial, else empty.')


class _Rater(serializers.Serializer):
    id = serializers.IntegerField(allow_null=True, help_text="Null when raters are shown by pseudonym.")
    name = serializers.CharField()


class _Pair(serializers.Serializer):
    key = serializers.CharField(help_text='Rater ids ("12-15"), or pseudonyms ("R1-R2"): the value of ?pair=.')
    raters = serializers.ListField(child=serializers.IntegerField(allow_null=True))
    names = serializers.ListField(child=serializers.CharField())
    n = serializers.IntegerField()


class _GateDimension(serializers.Serializer):
    key = serializers.CharField()
    name = serializers.CharField()
    measure = serializers.CharField()
    measure_name = serializers.CharField()
    value = serializers.FloatField(allow_null=True)
    n = serializers.IntegerField()
    n_left_out = serializers.IntegerField()
    left_out = _LeftOut()
    passed = serializers.BooleanField()
    undefined = serializers.CharField()


class _Gate(serializers.Serializer):
    basis = serializers.CharField(help_text="Which labels the gate measures: the first submissions.")
    threshold = serializers.FloatField()
    round = serializers.IntegerField(allow_null=True)
    passed = serializers.BooleanField()
    dimensions = _GateDimension(many=True)
    failing = serializers.ListField(child=serializers.CharField())
    labels_version = serializers.CharField()


class _StudyRef(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    phase = serializers.CharField()
    blind = serializers.BooleanField()
    agreement_threshold = serializers.FloatField()


class AgreementReportOutputSerializer(serializers.Serializer):
    """The agreement report (documentation only: the view returns the cached report as it is)."""

    study = _StudyRef()
    access = serializers.ChoiceField(choices=["full", "summary"])
    labels_version = serializers.CharField()
    computed_at = serializers.DateTimeField()
    filters = _Filters()
    rounds = _Round(many=True)
    subset = _Subset(help_text="What agreement is computed on: with partial overlap, the double-coded issues only.")
    raters = _Rater(many=True)
    pairs = _Pair(many=True)
    pooled = serializers.BooleanField(help_text="Two-rater measures pool each issue's two raters over pairs.")
    ci_clipped = serializers.BooleanField(help_text="True when some interval in the report was clipped to -1..1.")
    before_label = serializers.CharField(help_text='What "before discussion" measures: first submissions.')
    after_label = serializers.CharField(help_text='What "after discussion" measures.')
    issues = serializers.IntegerField(help_text="Issues in scope with a submitted label.")
    resolved = serializers.IntegerField(help_text="Issues in scope with a final label.")
    pending = serializers.IntegerField(help_text="Issues waiting for adjudication or sent back for discussion.")
    with_raters = serializers.IntegerField(help_text="Issues not yet submitted by all their raters.")
    resolutions = serializers.IntegerField(help_text="Same as resolved (kept for older clients).")
    left_out_reasons = serializers.DictField(child=serializers.CharField(), help_text="Each left-out reason, in words.")
    after_available = serializers.BooleanField(help_text="False until some final label has been decided.")
    anonymous = serializers.BooleanField(
        required=False, help_text="Present and true when raters are named by stable pseudonyms (R1, R2, ...)."
    )
    dimensions = _Dimension(many=True)
    screening = _Row(allow_null=True)
    gate = _Gate(required=False, help_text="While the study is in its pilot: each dimension against the threshold.")


MAX_NUMBER = 2**63 - 1
PAIR_PATTERN = r"^([0-9]{1,18}|[Rr][0-9]{1,9})-([0-9]{1,18}|[Rr][0-9]{1,9})$"
BOOLEANS = {"true": True, "1": True, "false": False, "0": False}


def _int(request: Request, name: str) -> int | None:
    text = request.query_params.get(name)
    if text is None:
        return None
    number = ascii_int(text, max_digits=len(str(MAX_NUMBER)))
    if number is None or not 1 <= number <= MAX_NUMBER:
        raise serializers.ValidationError({name: [f"'{name}' must be a whole number from 1; got '{text[:40]}'."]})
    return number


def _bool(request: Request, name: str) -> bool:
    text = request.query_params.get(name, "false")
    if text.lower() not in BOOLEANS:
        raise serializers.ValidationError({name: [f"'{name}' is true or false; got '{text[:40]}'."]})
    return BOOLEANS[text.lower()]


def _pair_text(request: Request) -> str | None:
    text = request.query_params.get("pair")
    if text is not None and not re.fullmatch(PAIR_PATTERN, text):
        raise serializers.ValidationError(
            {"pair": [f"Two rater ids (12-15) or pseudonyms (R1-R2); got '{text[:40]}'."]}
        )
    return text


def _number(name: str, description: str) -> OpenApiParameter:
    schema = {"type": "integer", "minimum": 1, "maximum": MAX_NUMBER, "format": "int64"}
    return OpenApiParameter(name, schema, description=description)


class StudyAgreementApi(APIView):
    permission_classes = [IsAuthenticated]
    renderer_classes = [JSONRenderer, AgreementCsvRenderer]

    @extend_schema(
        tags=["agreement"],
        operation_id="study_agreement",
        summary="Inter-rater agreement of a study: per dimension, taxonomy level, round and rater pair",
        description=(
            "Owners, adjudicators and staff get everything; raters get the summary (no confusion matrices, "
            "per-pair or per-category tables) once the study is published or if it is not blind, and 403 before. "
            "With anonymous adjudication, everyone but the owner sees raters as stable pseudonyms (R1, R2). "
            "Before discussion figures (summary, levels, pairs, trend, confusion, the pilot gate) come from each "
            "rater's first, independent submission; after discussion from the revised labels and the final labels. "
            "Every row carries n and the issues left out, with why. "
            "`?format=csv` returns the flat table (a basis column, then overall, per level, per pair, after "
            "discussion), with cells that could run as spreadsheet formulas prefixed by a quote."
        ),
        parameters=[
            _number("round", "Only the issues of this round (404 if the study has no such round)."),
            OpenApiParameter(
                "pair",
                {"type": "string", "pattern": PAIR_PATTERN},
                description="Two rater ids (12-15) or pseudonyms (R1-R2): only this pair (404: no labels in common).",
            ),
            OpenApiParameter(
                "bootstrap", OpenApiTypes.BOOL, description="true: add seeded bootstrap intervals to each summary."
            ),
            _number("level", "Taxonomy level (1 = top) instead of the leaf."),
            OpenApiParameter("format", OpenApiTypes.STR, enum=["json", "csv"], description="json (default) or csv."),
        ],
        responses={
            (200, "application/json"): AgreementReportOutputSerializer,
            (200, "text/csv"): OpenApiTypes.STR,
            400: OpenApiResponse(description="A filter is malformed."),
            403: OpenApiResponse(description="A rater of a blind, unpublished study."),
            404: OpenApiResponse(description="No such study, not a member of it, or no such round or rater pair."),
        },
    )
    def get(self, request: Request, pk: int) -> Response:
        # Imported here: the agreement code brings numpy, scipy and statsmodels, which a web worker that serves
        # only raters never needs in memory.
        from annotator.selectors.agreement import FULL, agreement_study_for_user, labels_version, rater_aliases
        from annotator.services.agreement import (
            agreement_gate,
            agreement_report,
            parse_pair,
            report_rows,
            report_with_aliases,
        )

        study, access = agreement_study_for_user(user=request.user, pk=pk)
        aliases = rater_aliases(user=request.user, study=study)
        version = labels_version(study=study)
        report = agreement_report(
            study=study,
            round_number=_int(request, "round"),
            pair=parse_pair(_pair_text(request), aliases),
            level=_int(request, "level"),
            version=version,
            bootstrap=_bool(request, "bootstrap"),
        )
        report = report_with_aliases(report, aliases)
        full = access == FULL
        if request.accepted_renderer.format == "csv":
            return Response(
                list(report_rows(report, by_pair=full)),
                headers={"Content-Disposition": f'attachment; filename="agreement-{study.slug}.csv"'},
            )
        body = {
            "study": {
                "id": study.pk,
                "name": study.name,
                "phase": study.phase,
                "blind": study.blind,
                "agreement_threshold": float(study.agreement_threshold),
            },
            "access": access,
            **report,
        }
        if full:
            if study.phase == Study.Phase.PILOT:
                body["gate"] = agreement_gate(study=study, version=version)
        else:
            body["dimensions"] = [{k: v for k, v in d.items() if k not in FULL_ONLY} for d in report["dimensions"]]
        return Response(body)
