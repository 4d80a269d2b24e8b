"""Admin for taxonomies: versions with their dimensions and category tree; published versions read-only."""

from django import forms
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


class DimensionInline(admin.TabularInline):
    model = Dimension
    fields = ("order", "key", "name", "multi_valued", "required", "level_names", "applies_when", "help_text")
    extra = 0

    def has_add_permission(self, request, obj=None) -> bool:
        return obj is not None and not _published(obj)

    def has_change_permission(self, request, obj=None) -> bool:
        return super().has_change_permission(request, obj) and not _published(obj)

    def has_delete_permission(self, request, obj=None) -> bool:
        return super().has_delete_permission(request, obj) and not _published(obj)


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
    readonly_fields = ("status", "published_at", "source", "source_sha256", "tree")
    inlines = [DimensionInline]
    actions = ["publish_selected"]

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("taxonomy", "based_on__taxonomy")

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return super().has_change_permission(request, obj) and not _published(obj)

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


class CategoryForm(forms.ModelForm):
    class Meta:
        model = Category
        fields = [
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
        ]

    def clean(self):
        cleaned = super().clean()
        dimension, parent = cleaned.get("dimension"), cleaned.get("parent")
        if dimension is not None and dimension.version.is_published:
            raise forms.ValidationError(
                f"{dimension.version} is published and cannot change; add the category to a draft version."
            )
        if dimension is not None and parent is not None and parent.dimension_id != dimension.pk:
            self.add_error("parent", "The parent must belong to the same dimension.")
        return cleaned


@admin.register(Category)
class CategoryAdmin(admin.ModelAdmin):
    form = CategoryForm
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
    raw_id_fields = ("dimension", "parent")
    readonly_fields = ("lineage_id",)

    @admin.display(description="version", ordering="dimension__version")
    def version(self, obj: Category) -> TaxonomyVersion:
        return obj.dimension.version

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("dimension__version__taxonomy", "parent")

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return super().has_change_permission(request, obj) and not _published(obj)

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return super().has_delete_permission(request, obj) and not _published(obj)
