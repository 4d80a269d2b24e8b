"""Admin for taxonomies: versions with their dimensions and category tree; published versions read-only."""

from django.contrib import admin, messages
from django.db.models import Count
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html, format_html_join

from core.errors import DomainError
from taxonomy.models import Category, Dimension, Taxonomy, TaxonomyVersion
from taxonomy.selectors import category_tree
from taxonomy.services import version_delete, version_publish


def _published(obj) -> bool:
    """Whether obj belongs to (or is) a published version; published versions never change."""
    if isinstance(obj, TaxonomyVersion):
        return obj.is_published
    if isinstance(obj, Dimension):
        return obj.version.is_published
    if isinstance(obj, Category):
        return obj.dimension.version.is_published
    return False


class VersionInline(admin.TabularInline):
    model = TaxonomyVersion
    fk_name = "taxonomy"
    fields = ("link", "status", "published_at", "source", "dimension_count", "category_count")
    readonly_fields = fields
    extra = 0
    show_change_link = True
    can_delete = False

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .annotate(
                n_dimensions=Count("dimensions", distinct=True),
                n_categories=Count("dimensions__categories", distinct=True),
            )
        )

    def has_add_permission(self, request, obj=None) -> bool:
        return False  # versions come from templates (load_taxonomy) or from editing a draft

    @admin.display(description="version")
    def link(self, obj: TaxonomyVersion) -> str:
        return format_html(
            '<a href="{}">v{}</a>', reverse("admin:taxonomy_taxonomyversion_change", args=[obj.pk]), obj.number
        )

    @admin.display(description="dimensions")
    def dimension_count(self, obj) -> int:
        return obj.n_dimensions

    @admin.display(description="categories")
    def category_count(self, obj) -> int:
        return obj.n_categories


@admin.register(Taxonomy)
class TaxonomyAdmin(admin.ModelAdmin):
    list_display = ("name", "slug", "license", "version_count")
    search_fields = ("name", "slug", "description", "citation")
    prepopulated_fields = {"slug": ("name",)}
    inlines = [VersionInline]

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(n_versions=Count("versions"))

    @admin.display(description="versions", ordering="n_versions")
    def version_count(self, obj) -> int:
        return obj.n_versions


class ReadOnlyAdminMixin:
    """Shown, never written here: taxonomy content changes through the draft editor's services, which keep
    lineage, the changelog and the editor's revision (and refuse a category under its own subtree)."""

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


class DimensionInline(ReadOnlyAdminMixin, admin.TabularInline):
    model = Dimension
    fields = ("order", "key", "name", "multi_valued", "required", "level_names", "applies_when", "help_text")
    readonly_fields = fields
    extra = 0


@admin.register(TaxonomyVersion)
class TaxonomyVersionAdmin(admin.ModelAdmin):
    list_display = ("__str__", "taxonomy", "number", "status", "published_at", "source")
    list_filter = ("status", "taxonomy")
    list_select_related = ("taxonomy",)
    search_fields = ("taxonomy__name", "taxonomy__slug", "changelog")
    fields = (
        "taxonomy",
        "number",
        "status",
        "published_at",
        "based_on",
        "changelog",
        "source",
        "source_sha256",
        "tree",
    )
    readonly_fields = fields
    inlines = [DimensionInline]
    actions = ["publish_selected"]

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("taxonomy", "based_on__taxonomy")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # versions come from templates (load_taxonomy) or from a new draft in the editor

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False  # drafts are edited in the taxonomy editor (lineage, changelog); the actions below publish

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return super().has_delete_permission(request, obj) and not _published(obj)

    def delete_model(self, request, obj: TaxonomyVersion) -> None:
        self.delete_queryset(request, [obj])

    def delete_queryset(self, request, queryset) -> None:
        for version in queryset:
            try:
                version_delete(version=version)
            except DomainError as exc:
                self.message_user(request, exc.message, messages.ERROR)

    @admin.action(description="Publish selected draft versions (they become read-only)")
    def publish_selected(self, request, queryset) -> None:
        for version in queryset:
            try:
                version_publish(version=version)
            except DomainError as exc:
                self.message_user(request, exc.message, messages.ERROR)
            else:
                self.message_user(request, f"Published {version}.", messages.SUCCESS)

    @admin.display(description="category tree")
    def tree(self, obj: TaxonomyVersion | None) -> str:
        if obj is None or obj.pk is None:
            return "-"
        blocks = []
        for tree in category_tree(version=obj):
            rows = format_html_join(
                "",
                '<li class="taxonomy-admin-depth-{}">{}<code>{}</code> {}{}</li>',
                (
                    (
                        node.depth,
                        "\u2003\u2003" * (node.depth - 1) + ("\u2514 " if node.depth > 1 else ""),
                        node.category.code,
                        node.category.name,
                        "" if node.category.selectable else " (group)",
                    )
                    for node in tree.walk()
                ),
            )
            blocks.append(
                format_html(
                    "<h3>{} <small>({}, {} categories)</small></h3><ul>{}</ul>",
                    tree.dimension.name,
                    tree.dimension.key,
                    tree.category_count,
                    rows,
                )
            )
        return format_html_join("", "{}", ((block,) for block in blocks)) if blocks else "-"


@admin.register(Category)
class CategoryAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = (
        "name",
        "code",
        "dimension",
        "version",
        "parent",
        "distributed_specific",
        "selectable",
        "deprecated",
    )
    list_filter = (
        ("dimension__version", admin.RelatedOnlyFieldListFilter),
        "dimension__key",
        "deprecated",
        "distributed_specific",
        "selectable",
    )
    search_fields = ("name", "code", "definition", "provenance", "aliases")
    list_select_related = ("dimension__version__taxonomy", "parent")
    fields = (
        "dimension",
        "parent",
        "code",
        "name",
        "definition",
        "examples",
        "provenance",
        "distributed_specific",
        "aliases",
        "selectable",
        "deprecated",
        "order",
        "lineage_id",
    )
    readonly_fields = fields

    @admin.display(description="version", ordering="dimension__version")
    def version(self, obj: Category) -> TaxonomyVersion:
        return obj.dimension.version

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("dimension__version__taxonomy", "parent")
