"""Study worlds the tests build on: owner, raters A and B, an adjudicator and issues drawn into a round,
then labelled, adjudicated or evolved. Each test folder's `world` fixture picks one of these."""

from types import SimpleNamespace

from annotator.models import Assignment, Resolution
from annotator.services.annotations import AnnotationInput, annotation_submit
from annotator.services.resolutions import resolution_record
from tests.annotator.factories_issues import (
    CommentFactory,
    ComponentRuleFactory,
    FixDetailFactory,
    FixFileFactory,
    IssueFactory,
    IssueLinkFactory,
    RepositoryFactory,
)
from tests.annotator.studies.factories import draw, make_study, make_taxonomy

# The title of the first issue of a labelled world: a spreadsheet formula, which exports must neutralise.
FORMULA_TITLE = "=cmd()"


def build_world(users, *, n_issues: int = 5, comments: int = 0) -> SimpleNamespace:
    taxonomy = make_taxonomy()
    repo = RepositoryFactory(owner="deepspeedai", name="DeepSpeed")
    issues = [IssueFactory(repository=repo) for _ in range(n_issues)]
    for issue in issues:
        for _ in range(comments):
            CommentFactory(issue=issue)
    study = make_study(
        owner=users["owner"],
        raters=[users["rater_a"], users["rater_b"]],
        adjudicators=[users["adjudicator"]],
        taxonomy=taxonomy,
        name="Distributed training bugs",
        guidelines="# Guidelines\n\nLabel the **root cause**.",
    )
    study_round = draw(study, actor=users["owner"], size=n_issues, seed=7)
    assignments = {
        role: list(
            Assignment.objects.filter(rater=users[role], study_issue__study=study)
            .select_related("annotation", "study_issue")
            .order_by("study_issue__position")
        )
        for role in ("rater_a", "rater_b")
    }
    return SimpleNamespace(
        study=study,
        round=study_round,
        taxonomy=taxonomy,
        dims=taxonomy["dims"],
        cats=taxonomy["cats"],
        issues=issues,
        repo=repo,
        assignments=assignments,
        a=assignments["rater_a"][0],
        b=assignments["rater_b"][0],
    )


def complete_input(world, **overrides):
    values = {"symptom": [world.cats["symptom"][0].pk], "root_cause": [world.cats["root_cause"][1].pk]}
    return AnnotationInput(**{"values": values, **overrides})


def make_world(users, n_issues: int = 3):
    world = build_world(users, n_issues=n_issues)
    # Both raters of a balanced two-rater study share every issue; index issues by queue position.
    world.issue_ids = [a.study_issue_id for a in world.assignments["rater_a"]]
    return world


def submit(world, users, role: str, index: int = 0, **data):
    """Submit rater `role`'s annotation of the world's `index`-th issue (in their queue order)."""
    assignment = next(a for a in world.assignments[role] if a.study_issue_id == world.issue_ids[index])
    annotation = assignment.annotation
    annotation.refresh_from_db()
    return annotation_submit(
        annotation=annotation, actor=users[role], data=AnnotationInput(**data), expected_version=annotation.version
    )


def labels(world, symptom: int, root_cause: int, stage: list[int] | None = None) -> dict:
    values = {"symptom": [world.cats["symptom"][symptom].pk], "root_cause": [world.cats["root_cause"][root_cause].pk]}
    if stage is not None:
        values["stage"] = [world.cats["stage"][i].pk for i in stage]
    return {"values": values}


def labelled_world(users, n_issues: int = 6):
    world = make_world(users, n_issues=n_issues)
    first = world.a.study_issue.issue
    first.title = FORMULA_TITLE
    first.save(update_fields=["title"])
    for index in range(n_issues):
        symptom, cause = index % 3, index % 3
        submit(world, users, "rater_a", index, note="agree with rater_b", **labels(world, symptom, cause, [0]))
        other_cause = cause if index % 2 == 0 else (cause + 1) % 3
        submit(world, users, "rater_b", index, **labels(world, symptom, other_cause, [0, 1] if index == 1 else [0]))
    for resolution in Resolution.objects.filter(study_issue__study=world.study, status=Resolution.Status.PENDING):
        values = {"root_cause": [world.cats["root_cause"][0].pk]}
        if "stage" in resolution.disagreements:
            values["stage"] = [world.cats["stage"][0].pk]
        resolution_record(
            study_issue=resolution.study_issue,
            actor=users["adjudicator"],
            values=values,
            method=Resolution.Method.ADJUDICATED,
            reason=Resolution.Reason.RATER_ERROR,
            note="rater_a was right",
            expected_version=resolution.version,
        )
    return world


def fixed_world(users):
    """The labelled world whose issues got merged fixes with fix details: issue i (position i + 1) a pull request
    of 3 * (i + 1) added and 1 deleted lines in one file (under a "ZeRO" component folder for even i); the last
    issue has no linked fix."""
    world = labelled_world(users)
    world.study_issues = add_fixes(world.study, skip_last=True)
    return world


def add_fixes(study, *, skip_last: bool = False) -> list:
    """A "ZeRO" component rule and, for issue i (position i + 1), a merged pull request of 3 * (i + 1) added and
    1 deleted lines in one file (under the component's folder for even i); with `skip_last` the last issue gets
    none. Returns the study's issues in position order."""
    study_issues = list(study.study_issues.select_related("issue__repository").order_by("position"))
    repository = study_issues[0].issue.repository
    ComponentRuleFactory(repository=repository, pattern="deepspeed/runtime/zero/**", component="ZeRO", position=0)
    for i, study_issue in enumerate(study_issues[:-1] if skip_last else study_issues):
        link = IssueLinkFactory(issue=study_issue.issue)
        detail = FixDetailFactory(link=link, additions=3 * (i + 1), deletions=1, changed_files=1)
        folder = "deepspeed/runtime/zero" if i % 2 == 0 else "docs"
        FixFileFactory(detail=detail, path=f"{folder}/file_{i}.py")
    return study_issues


def label_all(world, users, *, proposals: bool = False) -> None:
    """Issue i: symptom leaf i % 3 for both raters; root cause leaf 1 (A) / leaf i % 2 (B); stage leaves 0+1 for A.

    With `proposals`, both raters also propose "NCCL timeout {i % 2}" for the stage (multi-valued: a proposal
    beside categories is allowed there, not in a single-valued dimension)."""
    cats = world.cats
    for role in ("rater_a", "rater_b"):
        for i, assignment in enumerate(world.assignments[role]):
            cause = 1 if role == "rater_a" else i % 2
            values = {"symptom": [cats["symptom"][i % 3].pk], "root_cause": [cats["root_cause"][cause].pk]}
            if role == "rater_a":
                values["stage"] = [cats["stage"][0].pk, cats["stage"][1].pk]
            annotation = assignment.annotation
            annotation.refresh_from_db()
            annotation_submit(
                annotation=annotation,
                actor=users[role],
                data=AnnotationInput(values=values, proposals={"stage": f"NCCL timeout {i % 2}"} if proposals else {}),
                expected_version=annotation.version,
            )
