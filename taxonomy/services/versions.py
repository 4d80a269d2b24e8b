"""Version life cycle: a draft can change and be deleted; a published version is immutable."""

from django.db import transaction
from django.db.models import ProtectedError
from django.utils import timezone

from core.errors import ConflictError, DomainError
from taxonomy.errors import VersionImmutableError
from taxonomy.models import Category, TaxonomyVersion


def version_ensure_draft(*, version: TaxonomyVersion) -> None:
    """Guard for every edit: raise unless the version is still a draft."""
    if version.is_published:
        raise VersionImmutableError(
            f"{version.taxonomy.slug} v{version.number} is published and cannot change; "
            "load or create a new version instead."
        )


@transaction.atomic
def version_publish(*, version: TaxonomyVersion) -> TaxonomyVersion:
    locked = TaxonomyVersion.objects.select_for_update().select_related("taxonomy").get(pk=version.pk)
    version_ensure_draft(version=locked)
    if not Category.objects.filter(dimension__version=locked, selectable=True).exists():
        raise DomainError(
            f"{locked.taxonomy.slug} v{locked.number} has no selectable category; add some before publishing."
        )
    locked.status = TaxonomyVersion.Status.PUBLISHED
    locked.published_at = timezone.now()
    locked.save(update_fields=["status", "published_at", "updated_at"])
    version.status, version.published_at = locked.status, locked.published_at
    return locked


@transaction.atomic
def version_delete(*, version: TaxonomyVersion) -> None:
    """Delete a draft with its dimensions and categories (a published version is kept forever)."""
    locked = TaxonomyVersion.objects.select_for_update().select_related("taxonomy").get(pk=version.pk)
    version_ensure_draft(version=locked)
    if locked.successors.exists():
        raise ConflictError(f"{locked.taxonomy.slug} v{locked.number} is the base of a later version; keep it.")
    try:
        # Leaves first: a category's parent link is PROTECT so no stray delete can orphan a subtree.
        categories = Category.objects.filter(dimension__version=locked)
        while categories.exists():
            categories.filter(children__isnull=True).delete()
        locked.dimensions.all().delete()
        locked.delete()
    except ProtectedError as exc:
        raise ConflictError(
            f"{locked.taxonomy.slug} v{locked.number} is used by {_holders(exc)}; "
            "nothing was deleted: remove those first or leave the draft in place."
        ) from exc


def _holders(exc: ProtectedError) -> str:
    """What the protected rows are, by their model's name (e.g. "2 final labels, 1 study"), without importing the
    apps that hold them."""
    counts: dict[str, int] = {}
    for obj in exc.protected_objects:
        meta = obj._meta
        counts[str(meta.verbose_name)] = counts.get(str(meta.verbose_name), 0) + 1
    if not counts:
        return "a study or by labels"
    plural = {str(obj._meta.verbose_name): str(obj._meta.verbose_name_plural) for obj in exc.protected_objects}
    return ", ".join(f"{n} {name if n == 1 else plural[name]}" for name, n in sorted(counts.items()))
