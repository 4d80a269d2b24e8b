"""A world where rater B proposed a symptom the taxonomy lacks while rater A chose a category: the symptom is in
dispute, and the adjudicator may settle it on B's proposal."""

from annotator.models import Annotation, Resolution
from annotator.services.resolutions import resolution_record
from taxonomy.services import version_publish
from tests.annotator.worlds import make_world, submit

PROPOSAL = "Gradient overflow in fp16"


def proposal_world(users, n_issues: int = 2, *, published: bool = False):
    """``published``: the study's taxonomy version is published before the raters label (so it can evolve)."""
    world = make_world(users, n_issues=n_issues)
    if published:
        version_publish(version=world.study.taxonomy_version)
    cats = world.cats
    for index in range(n_issues):
        submit(
            world,
            users,
            "rater_a",
            index,
            values={"symptom": [cats["symptom"][0].pk], "root_cause": [cats["root_cause"][0].pk]},
        )
        submit(
            world,
            users,
            "rater_b",
            index,
            values={"root_cause": [cats["root_cause"][0].pk]},
            proposals={"symptom": PROPOSAL if index == 0 else f"{PROPOSAL} {index}"},
        )
    return world


def proposer(world, index: int = 0) -> Annotation:
    return Annotation.objects.get(
        assignment__study_issue_id=world.issue_ids[index], assignment__rater__username="rater_b"
    )


def resolution_of(world, index: int = 0) -> Resolution:
    return Resolution.objects.get(study_issue_id=world.issue_ids[index])


def settle_on_proposal(world, users, index: int = 0) -> Resolution:
    resolution = resolution_of(world, index)
    return resolution_record(
        study_issue=resolution.study_issue,
        actor=users["adjudicator"],
        values={},
        proposals={"symptom": proposer(world, index).pk},
        method=Resolution.Method.ADJUDICATED,
        reason=Resolution.Reason.TAXONOMY_GAP,
        note="the taxonomy lacks this symptom",
        expected_version=resolution.version,
    )
