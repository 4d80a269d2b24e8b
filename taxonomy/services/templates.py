"""Loading taxonomy templates (JSON files, see docs/taxonomy-templates.md) as taxonomy versions."""

from dataclasses import dataclass
from pathlib import Path

from django.db import transaction
from django.utils import timezone

from core.errors import NotFoundError, PermissionDeniedError
from core.permissions import can_manage_taxonomies
from taxonomy.errors import TemplateError
from taxonomy.models import Category, Dimension, Taxonomy, TaxonomyVersion
from taxonomy.services.fingerprint import version_with_content
from taxonomy.template_schema import CategoryRecord, TemplateInvalid, TemplateRecord, parse_template

SHIPPED_TEMPLATES_DIR = Path(__file__).resolve().parent.parent / "data"


@dataclass(frozen=True, slots=True)
class TemplateLoadResult:
    version: TaxonomyVersion
    created: bool
    dimension_count: int
    category_count: int

    @property
    def summary(self) -> str:
        slug, number = self.version.taxonomy.slug, self.version.number
        if not self.created:
            return f"{slug} unchanged (v{number})"
        draft = " (draft)" if not self.version.is_published else ""
        return f"loaded {slug} v{number}{draft}: {self.dimension_count} dimensions, {self.category_count} categories"


def shipped_templates() -> list[Path]:
    """The templates that ship with the product, in a stable order."""
    return sorted(SHIPPED_TEMPLATES_DIR.glob("*.json"))


def template_path_resolve(slug_or_path: str | Path) -> Path:
    """A path to a template file, or the slug of a shipped template."""
    path = Path(slug_or_path)
    if path.is_file():
        return path
    shipped = SHIPPED_TEMPLATES_DIR / f"{slug_or_path}.json"
    if shipped.is_file():
        return shipped
    names = ", ".join(p.stem for p in shipped_templates()) or "none"
    raise NotFoundError(
        f"No template file {str(slug_or_path)!r} and no shipped template of that slug (shipped: {names})."
    )


def taxonomy_template_load(*, source: str | Path, status: str = TaxonomyVersion.Status.PUBLISHED) -> TemplateLoadResult:
    """Load a template as a new version of its taxonomy; loading unchanged content again changes nothing.

    The template is validated completely before anything is written: a bad template raises
    TemplateError naming the file and the JSON path of every problem.
    """
    if status not in TaxonomyVersion.Status.values:
        raise ValueError(f"status must be one of {TaxonomyVersion.Status.values}, got {status!r}")
    path = template_path_resolve(source)
    try:
        record = parse_template(path.read_bytes(), filename=path.name)
    except TemplateInvalid as exc:
        raise TemplateError(exc.lines) from exc
    return taxonomy_template_record_load(record=record, source_name=path.name, status=status)


@transaction.atomic
def taxonomy_template_record_load(
    *, record: TemplateRecord, source_name: str, status: str = TaxonomyVersion.Status.PUBLISHED, actor=None
) -> TemplateLoadResult:
    """Load an already parsed and validated template (``parse_template``), e.g. one read from an archive:
    no file path is involved, so nothing read from outside ever names a file.

    Content equal to a version of the taxonomy reuses that version, for anyone. A new taxonomy or version is a
    taxonomy edit: with an ``actor``, only a taxonomy maintainer or staff may cause it (PermissionDeniedError);
    ``actor`` None is the system (loading the shipped templates, a command run without --user)."""
    if status not in TaxonomyVersion.Status.values:
        raise ValueError(f"status must be one of {TaxonomyVersion.Status.values}, got {status!r}")
    taxonomy, _ = Taxonomy.objects.get_or_create(slug=record.slug, defaults={"name": record.name})
    # One loader at a time per taxonomy, so two loads cannot both take the next version number.
    taxonomy = Taxonomy.objects.select_for_update().get(pk=taxonomy.pk)
    latest = taxonomy.versions.order_by("-number").first()
    same = version_with_content(taxonomy_id=taxonomy.pk, record=record, drafts=status == TaxonomyVersion.Status.DRAFT)
    if same is not None:
        return TemplateLoadResult(
            version=same,
            created=False,
            dimension_count=same.dimensions.count(),
            category_count=Category.objects.filter(dimension__version=same).count(),
        )
    if actor is not None and not can_manage_taxonomies(actor):
        what = "a new version of it" if latest else "it as a new taxonomy"
        raise PermissionDeniedError(
            f"The taxonomy {record.slug!r} differs from every version here, and only taxonomy maintainers and staff "
            f"can add {what}. Ask a taxonomy maintainer to load it first (or to run this import)."
        )

    for field in ("name", "description", "citation", "license", "attribution"):
        setattr(taxonomy, field, getattr(record, field))
    taxonomy.save()
    # Filled as a draft and then published: the database refuses rows added to a published version.
    version = TaxonomyVersion.objects.create(
        taxonomy=taxonomy,
        number=(latest.number + 1) if latest else 1,
        status=TaxonomyVersion.Status.DRAFT,
        changelog=record.changelog,
        based_on=latest,
        source=source_name,
        source_sha256=record.sha256,
    )
    dimensions = Dimension.objects.bulk_create(
        Dimension(
            version=version,
            key=d.key,
            name=d.name,
            help_text=d.help_text,
            multi_valued=d.multi_valued,
            required=d.required,
            order=d.order,
            level_names=d.level_names,
            applies_when=d.applies_when,
        )
        for d in record.dimensions
    )
    category_count = _create_categories(record, dimensions, lineage=_lineage_of(latest))
    if status == TaxonomyVersion.Status.PUBLISHED:
        version.status, version.published_at = status, timezone.now()
        version.save(update_fields=["status", "published_at", "updated_at"])
    return TemplateLoadResult(
        version=version, created=True, dimension_count=len(dimensions), category_count=category_count
    )


def _lineage_of(version: TaxonomyVersion | None) -> dict[tuple[str, str], object]:
    """(dimension key, category code) -> lineage id: a category keeps its identity across versions."""
    if version is None:
        return {}
    rows = Category.objects.filter(dimension__version=version).values_list("dimension__key", "code", "lineage_id")
    return {(key, code): lineage for key, code, lineage in rows}


def _create_categories(record: TemplateRecord, dimensions: list[Dimension], *, lineage: dict) -> int:
    """Create the trees level by level: one bulk insert per depth, parents before children."""
    level: list[tuple[Dimension, Category | None, int, CategoryRecord]] = [
        (dimension, None, position, category)
        for dimension, dimension_record in zip(dimensions, record.dimensions, strict=True)
        for position, category in enumerate(dimension_record.categories)
    ]
    total = 0
    while level:
        objects = []
        for dimension, parent, position, item in level:
            category = Category(
                dimension=dimension,
                parent=parent,
                code=item.code,
                name=item.name,
                definition=item.definition,
                examples=item.examples,
                provenance=item.provenance,
                distributed_specific=item.distributed_specific,
                aliases=item.aliases,
                deprecated=item.deprecated,
                order=position,
                selectable=item.selectable,
            )
            if (dimension.key, item.code) in lineage:
                category.lineage_id = lineage[(dimension.key, item.code)]
            objects.append(category)
        created = Category.objects.bulk_create(objects)
        total += len(created)
        level = [
            (dimension, parent, position, child)
            for (dimension, _, _, item), parent in zip(level, created, strict=True)
            for position, child in enumerate(item.children)
        ]
    return total
