"""The whole story on the shipped ddl-2025 template: label, sort proposals, publish v2, carry every label."""

from annotator.models import Annotation, AnnotationValue, Assignment, ProposalDecision
from annotator.services.annotations import AnnotationInput, annotation_submit
from annotator.services.cardsort import cardsort_apply, proposal_decide
from annotator.services.migration import study_version_move
from taxonomy.models import Category
from taxonomy.services import taxonomy_template_load
from taxonomy.services.operations import category_split, version_publish_with_changelog
from tests.annotator.factories_issues import IssueFactory, RepositoryFactory
from tests.annotator.studies.factories import draw, make_study
from tests.factories import make_taxonomy_maintainer


def test_from_the_incomplete_template_to_v2_with_every_label_carried_or_queued(users):
    make_taxonomy_maintainer(users["owner"])  # the owner also builds v2 of the taxonomy
    v1 = taxonomy_template_load(source="ddl-2025").version
    symptom = v1.dimensions.get(key="symptom")
    cause = v1.dimensions.get(key="root_cause")
    setup = Category.objects.get(dimension=symptom, name="setup failure")
    a_cause = Category.objects.filter(dimension=cause, selectable=True).first()
    repo = RepositoryFactory(owner="hpcaitech", name="ColossalAI")
    for _ in range(4):
        IssueFactory(repository=repo)
    study = make_study(
        owner=users["owner"],
        raters=[users["rater_a"], users["rater_b"]],
        taxonomy={"version": v1},
        dimensions=[symptom, cause],
    )
    draw(study, actor=users["owner"], size=4, seed=3)
    # On the first two issues both raters choose 'setup failure'; on the other two nothing fits: they propose.
    assignments = Assignment.objects.filter(study_issue__study=study).select_related("annotation", "study_issue")
    first_two = sorted({a.study_issue_id for a in assignments})[:2]
    for assignment in assignments.order_by("study_issue__position", "pk"):
        fits = assignment.study_issue_id in first_two
        annotation_submit(
            annotation=assignment.annotation,
            actor=assignment.rater,
            data=AnnotationInput(
                values={"symptom": [setup.pk], "root_cause": [a_cause.pk]} if fits else {"root_cause": [a_cause.pk]},
                proposals={} if fits else {"symptom": "NCCL hang"},
            ),
            expected_version=assignment.annotation.version,
        )
    proposal_decide(
        study=study,
        actor=users["owner"],
        dimension_key="symptom",
        proposals=["nccl hang"],
        action="new",
        new_category_name="communication hang",
    )
    draft = cardsort_apply(study=study, actor=users["owner"])
    category_split(
        category=Category.objects.get(dimension__version=draft, lineage_id=setup.lineage_id),
        actor=users["owner"],
        parts=[{"name": "environment setup failure"}, {"name": "communication setup failure"}],
    )
    v2 = version_publish_with_changelog(version=draft, actor=users["owner"])
    assert "added 'communication hang' (from 1 proposal covering 2 issues)" in v2.changelog
    assert "split 'setup failure' into 'environment setup failure' and 'communication setup failure'" in v2.changelog

    labels_before = AnnotationValue.objects.filter(annotation__assignment__study_issue__study=study).count()
    move = study_version_move(study=study, to_version=v2, actor=users["owner"])
    values = AnnotationValue.objects.filter(annotation__assignment__study_issue__study=study)
    assert labels_before == 12 and values.count() == 16  # the four proposals became labels
    assert move.counts["split"] == 4 and move.counts["unchanged"] == 8 and move.counts["reopened"] == 4
    assert move.counts["from_proposals"] == 4 and move.counts["proposals_to_relabel"] == 0
    assert set(values.values_list("category__dimension__version", flat=True)) == {v2.pk}
    from_proposals = values.exclude(from_proposal="")
    assert set(from_proposals.values_list("category__name", "from_proposal")) == {("communication hang", "NCCL hang")}
    assert not Annotation.objects.filter(assignment__study_issue__study=study).exclude(proposals={}).exists()
    queued = Assignment.objects.filter(study_issue__study=study, status=Assignment.Status.DRAFTED).count()
    assert queued == 4
    assert ProposalDecision.objects.get().applied_to == v2
