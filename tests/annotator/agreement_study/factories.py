"""Studies with labels written straight into the tables (fast), for the agreement tests."""

from collections.abc import Sequence

from django.utils import timezone

from annotator.models import Annotation, AnnotationValue, Assignment, Resolution, Study
from annotator.services.agreement.version import study_labels_changed
from annotator.services.first_submissions import first_submission_record
from annotator.services.sampling import SampleFilters, study_round_draw
from tests.annotator.factories_issues import IssueFactory, RepositoryFactory
from tests.annotator.final_labels import resolution_make
from tests.annotator.studies.factories import make_study, make_taxonomy
from tests.factories import CategoryFactory, DimensionFactory

# Cohen's classic example (Wikipedia, "Cohen's kappa"): 50 grant proposals, yes/yes 20, yes/no 5,
# no/yes 10, no/no 15: p_o = 0.7, p_e = 0.5, kappa = 0.4.
GRANTS = [("yes", "yes")] * 20 + [("yes", "no")] * 5 + [("no", "yes")] * 10 + [("no", "no")] * 15


def study_with_issues(users, *, n_issues: int, raters=("rater_a", "rater_b"), kind="main", taxonomy=None, **options):
    taxonomy = taxonomy or make_taxonomy()
    study = make_study(
        owner=users["owner"],
        raters=[users[r] for r in raters],
        adjudicators=[users["adjudicator"]],
        taxonomy=taxonomy,
        **options,
    )
    add_round(study, users, n_issues=n_issues, kind=kind)
    return study


def add_round(study: Study, users, *, n_issues: int, kind: str = "main"):
    """A new round of `n_issues` fresh issues (from a repository of their own)."""
    repo = RepositoryFactory()
    for _ in range(n_issues):
        IssueFactory(repository=repo)
    return study_round_draw(
        study=study,
        actor=users["owner"],
        filters=SampleFilters(repository_ids=[repo.pk]),
        size=n_issues,
        seed=3,
        kind=kind,
    )


def assignments_of(study: Study, rater) -> list[Assignment]:
    return list(
        Assignment.objects.filter(study_issue__study=study, rater=rater)
        .select_related("annotation", "study_issue")
        .order_by("study_issue__position")
    )


def write_label(
    assignment: Assignment, categories: Sequence = (), *, excluded: bool = False, proposals: dict | None = None
) -> Annotation:
    """Submit `categories` (of any dimensions) as the rater's labels, bypassing the form checks; the first
    submit of an annotation is also its first submission (independent labels), as with the submit service.

    Like the annotation services, it bumps the study's labels version (the agreement report's cache key)."""
    annotation = assignment.annotation
    annotation.excluded = excluded
    annotation.excluded_reason = Annotation.ExcludedReason.NOT_A_BUG if excluded else ""
    annotation.proposals = dict(proposals or {})
    annotation.submitted_at = timezone.now()
    annotation.save()
    AnnotationValue.objects.filter(annotation=annotation).delete()
    AnnotationValue.objects.bulk_create(
        [AnnotationValue(annotation=annotation, dimension_id=c.dimension_id, category=c) for c in categories]
    )
    Assignment.objects.filter(pk=assignment.pk).update(status=Assignment.Status.SUBMITTED, submitted_at=timezone.now())
    # As the submit service does: the first submit is kept as the rater's independent labels; later ones revise.
    first_submission_record(
        annotation=annotation,
        values=[(c.dimension_id, c.pk) for c in categories],
        submitted_at=annotation.submitted_at,
    )
    study_labels_changed(study_id=assignment.study_issue.study_id)
    return annotation


def write_resolution(study_issue, values: dict[str, list[int]], *, excluded: bool = False, by=None) -> Resolution:
    """A resolution written straight into its table; bumps the labels version as the resolution services do."""
    study_labels_changed(study_id=study_issue.study_id)
    return resolution_make(
        study_issue=study_issue,
        values={} if excluded else values,
        excluded=excluded,
        method=Resolution.Method.ADJUDICATED,
        decided_by=by,
        decided_at=timezone.now(),
    )


def grant_study(users, *, n_copies: int = 1, kind: str = "main", only_symptom: bool = False, **options):
    """A study whose `symptom` labels reproduce the grant table (kappa 0.4), repeated n_copies times.

    ``only_symptom``: the study labels that dimension alone (so the pilot gate looks at it alone).
    """
    taxonomy = make_taxonomy()
    if only_symptom:
        options["dimensions"] = [taxonomy["dims"]["symptom"]]
    study = study_with_issues(users, n_issues=len(GRANTS) * n_copies, kind=kind, taxonomy=taxonomy, **options)
    cats = study.taxonomy_fixture["cats"]["symptom"]
    yes, no = cats[0], cats[1]
    pick = {"yes": yes, "no": no}
    a_rows, b_rows = assignments_of(study, users["rater_a"]), assignments_of(study, users["rater_b"])
    for i, (a, b) in enumerate(zip(a_rows, b_rows, strict=True)):
        first, second = GRANTS[i % len(GRANTS)]
        write_label(a, [pick[first]])
        write_label(b, [pick[second]])
    return study


def three_level_taxonomy():
    """`symptom` as a 3-level tree: stage > inner category > leaf.

    S1 > I1 > {L1, L2};  S1 > I2 > {L3};  S2 > I3 > {L4}.
    """
    taxonomy = make_taxonomy()
    version = taxonomy["version"]
    dim = DimensionFactory(
        version=version, key="tree", name="Tree", order=9, level_names=["stage", "inner category", "leaf"]
    )
    s1 = CategoryFactory(dimension=dim, code="S1", name="S1", selectable=False, order=1)
    s2 = CategoryFactory(dimension=dim, code="S2", name="S2", selectable=False, order=2)
    i1 = CategoryFactory(dimension=dim, parent=s1, code="I1", name="I1", selectable=False, order=1)
    i2 = CategoryFactory(dimension=dim, parent=s1, code="I2", name="I2", selectable=False, order=2)
    i3 = CategoryFactory(dimension=dim, parent=s2, code="I3", name="I3", selectable=False, order=3)
    leaves = {
        "L1": CategoryFactory(dimension=dim, parent=i1, code="L1", name="L1", order=1),
        "L2": CategoryFactory(dimension=dim, parent=i1, code="L2", name="L2", order=2),
        "L3": CategoryFactory(dimension=dim, parent=i2, code="L3", name="L3", order=3),
        "L4": CategoryFactory(dimension=dim, parent=i3, code="L4", name="L4", order=4),
    }
    taxonomy["dims"]["tree"] = dim
    taxonomy["cats"]["tree"] = leaves
    return taxonomy
