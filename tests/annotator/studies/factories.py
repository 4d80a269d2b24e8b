"""Study builders over the factories: a small taxonomy, a study with its members, a drawn round."""

from django.contrib.auth.models import Group

from annotator.models import Study, StudyMember
from annotator.services.sampling import SampleFilters, study_round_draw
from annotator.services.studies import study_create
from core.permissions import STUDY_OWNERS_GROUP
from tests.factories import CategoryFactory, DimensionFactory, TaxonomyVersionFactory, UserFactory


def make_taxonomy(*, leaves: int = 3) -> dict:
    """A version with `symptom` and `root_cause` (required, single) and `stage` (optional, multi-valued).

    Each dimension has one non-selectable group holding `leaves` categories. Returns
    {"version", "dims": {key: Dimension}, "cats": {key: [leaf categories]}, "groups": {key: group}}.
    """
    version = TaxonomyVersionFactory()
    dims, cats, groups = {}, {}, {}
    for order, (key, required, multi) in enumerate(
        [("symptom", True, False), ("root_cause", True, False), ("stage", False, True)]
    ):
        dim = DimensionFactory(
            version=version,
            key=key,
            name=key.replace("_", " ").title(),
            required=required,
            multi_valued=multi,
            order=order,
        )
        group = CategoryFactory(
            dimension=dim,
            code=f"{key}-group",
            name=f"{key} group",
            definition=f"Definition of {key} group.",
            selectable=False,
        )
        dims[key], groups[key] = dim, group
        cats[key] = [
            CategoryFactory(
                dimension=dim,
                parent=group,
                code=f"{key}-{i}",
                name=f"{key} leaf {i}",
                definition=f"Definition of {key} leaf {i}.",
                order=i,
            )
            for i in range(leaves)
        ]
    return {"version": version, "dims": dims, "cats": cats, "groups": groups}


def make_owner(username: str = "owner"):
    user = UserFactory(username=username)
    group, _ = Group.objects.get_or_create(name=STUDY_OWNERS_GROUP)
    user.groups.add(group)
    return user


def make_study(*, owner, raters, adjudicators=(), taxonomy=None, **options) -> Study:
    taxonomy = taxonomy or make_taxonomy()
    if not owner.groups.filter(name=STUDY_OWNERS_GROUP).exists():
        group, _ = Group.objects.get_or_create(name=STUDY_OWNERS_GROUP)
        owner.groups.add(group)
    options.setdefault("name", f"Study {Study.objects.count() + 1}")
    study = study_create(
        taxonomy_version=taxonomy["version"],
        created_by=owner,
        raters=list(raters),
        adjudicators=list(adjudicators),
        **options,
    )
    study.taxonomy_fixture = taxonomy
    return study


def draw(study: Study, *, actor, size: int, seed: int = 1, **filters):
    stratification = filters.pop("stratification", "none")
    per_repository = filters.pop("per_repository", None)
    return study_round_draw(
        study=study,
        actor=actor,
        filters=SampleFilters(**filters),
        size=size,
        seed=seed,
        stratification=stratification,
        per_repository=per_repository,
    )


def member_roles(study: Study) -> set[tuple[str, str]]:
    return set(StudyMember.objects.filter(study=study).values_list("user__username", "role"))
