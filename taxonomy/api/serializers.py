"""Output serializers of the public taxonomy API (read-only; names unique across the schema)."""

from rest_framework import serializers

from taxonomy.models import CategoryLineage, Taxonomy, TaxonomyVersion


class TaxonomyVersionSummaryOutputSerializer(serializers.ModelSerializer):
    based_on = serializers.IntegerField(source="based_on.number", allow_null=True, default=None)
    category_counts = serializers.SerializerMethodField()

    class Meta:
        model = TaxonomyVersion
        fields = ["number", "status", "published_at", "based_on", "category_counts", "changelog"]

    def get_category_counts(self, obj) -> dict[str, int]:
        """Current (selectable, not deprecated) categories per dimension key."""
        return self.context.get("counts", {}).get(obj.pk, {})


class TaxonomyListOutputSerializer(serializers.ModelSerializer):
    versions = serializers.SerializerMethodField()

    class Meta:
        model = Taxonomy
        fields = ["slug", "name", "description", "citation", "license", "versions"]

    def get_versions(self, obj) -> list[int]:
        return [v.number for v in obj.visible_versions]


class TaxonomyDetailOutputSerializer(TaxonomyListOutputSerializer):
    versions = TaxonomyVersionSummaryOutputSerializer(many=True, source="visible_versions")
    history = serializers.CharField(help_text="Markdown: every published version's changelog, newest first.")

    class Meta(TaxonomyListOutputSerializer.Meta):
        fields = [*TaxonomyListOutputSerializer.Meta.fields, "attribution", "history"]


class CategoryTreeOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    code = serializers.CharField()
    name = serializers.CharField()
    definition = serializers.CharField()
    examples = serializers.ListField(child=serializers.CharField())
    aliases = serializers.ListField(child=serializers.CharField())
    lineage_id = serializers.UUIDField()
    deprecated = serializers.BooleanField()
    selectable = serializers.BooleanField()
    distributed_specific = serializers.BooleanField(allow_null=True)
    children = serializers.ListField(child=serializers.DictField())


class DimensionTreeOutputSerializer(serializers.Serializer):
    key = serializers.CharField()
    name = serializers.CharField()
    multi_valued = serializers.BooleanField()
    required = serializers.BooleanField()
    category_count = serializers.IntegerField(help_text="Current categories: selectable and not deprecated.")
    categories = CategoryTreeOutputSerializer(many=True)


class CategoryLineageOutputSerializer(serializers.ModelSerializer):
    actor = serializers.CharField(source="actor.username", allow_null=True, default=None)

    class Meta:
        model = CategoryLineage
        fields = [
            "operation",
            "group",
            "dimension_key",
            "from_category",
            "to_category",
            "from_lineage_id",
            "to_lineage_id",
            "from_name",
            "to_name",
            "actor",
            "at",
            "note",
        ]


class TaxonomyVersionDetailOutputSerializer(serializers.Serializer):
    taxonomy = serializers.CharField(source="version.taxonomy.slug")
    number = serializers.IntegerField(source="version.number")
    status = serializers.CharField(source="version.status")
    published_at = serializers.DateTimeField(source="version.published_at", allow_null=True)
    based_on = serializers.IntegerField(allow_null=True)
    changelog = serializers.CharField()
    dimensions = DimensionTreeOutputSerializer(many=True)
    lineage = CategoryLineageOutputSerializer(many=True, help_text="Edges of this version (copies left out).")
