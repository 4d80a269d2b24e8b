"""Output serializers of the resource API (read-only shapes, each with a unique name)."""

from django.urls import reverse
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from annotator.models import Comment, ImportJob, Issue, IssueLink, Repository, Study


class RepositoryOutputSerializer(serializers.ModelSerializer):
    full_name = serializers.CharField(read_only=True)
    html_url = serializers.URLField(read_only=True)
    issue_count = serializers.IntegerField(read_only=True, help_text="Imported issues and pull requests.")

    class Meta:
        model = Repository
        fields = [
            "id",
            "host",
            "owner",
            "name",
            "full_name",
            "display_name",
            "description",
            "html_url",
            "issue_count",
            "last_synced_at",
        ]


class IssueRepositoryOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    full_name = serializers.CharField()
    display_name = serializers.CharField()


class IssueListOutputSerializer(serializers.ModelSerializer):
    repository = IssueRepositoryOutputSerializer(allow_null=True)

    class Meta:
        model = Issue
        fields = ["id", "repository", "number", "kind", "title", "state", "labels", "created", "comment_count", "url"]


class CommentOutputSerializer(serializers.ModelSerializer):
    class Meta:
        model = Comment
        fields = ["id", "author", "body", "created", "updated", "url"]


class IssueLinkOutputSerializer(serializers.ModelSerializer):
    class Meta:
        model = IssueLink
        fields = ["kind", "relation", "url", "number", "sha", "title", "merged"]


class IssueFixOutputSerializer(serializers.Serializer):
    """annotator.selectors.fixes.IssueFix: the size fields are null while no fixing change has fix details."""

    has_fix = serializers.BooleanField(help_text="A fixing pull request or commit is linked.")
    fixes = serializers.IntegerField(help_text="Fixing changes with fix details.")
    additions = serializers.IntegerField(allow_null=True)
    deletions = serializers.IntegerField(allow_null=True)
    lines_changed = serializers.IntegerField(allow_null=True)
    files = serializers.IntegerField(allow_null=True)
    files_complete = serializers.BooleanField(
        allow_null=True,
        help_text="False when GitHub listed only part of a fixing change's files (at most 3,000 a change): `files` "
        "is then GitHub's total for a pull request and at least the listed count for a commit; components are "
        "those of the listed files.",
    )
    components = serializers.ListField(child=serializers.CharField(), help_text="Components touched, by name.")
    unmapped_files = serializers.IntegerField(allow_null=True, help_text="Changed files in no component.")
    hours_to_fix = serializers.FloatField(allow_null=True, help_text="From the issue's opening to the fix landing.")
    hours_to_close = serializers.FloatField(allow_null=True)
    comments = serializers.IntegerField()
    participants = serializers.IntegerField(help_text="The reporter and everyone who commented.")


class IssueDetailOutputSerializer(serializers.ModelSerializer):
    repository = IssueRepositoryOutputSerializer(allow_null=True)
    comments = CommentOutputSerializer(many=True)
    links = IssueLinkOutputSerializer(many=True)
    fix = IssueFixOutputSerializer(read_only=True, help_text="How large and how slow the issue's fix was.")

    class Meta:
        model = Issue
        fields = [
            "id",
            "repository",
            "number",
            "kind",
            "title",
            "body",
            "state",
            "state_reason",
            "author",
            "labels",
            "created",
            "updated",
            "closed",
            "comment_count",
            "url",
            "comments",
            "links",
            "fix",
        ]


class StudyTaxonomyOutputSerializer(serializers.Serializer):
    slug = serializers.CharField(source="taxonomy.slug")
    name = serializers.CharField(source="taxonomy.name")
    version = serializers.IntegerField(source="number")
    status = serializers.CharField()


class StudyMemberOutputSerializer(serializers.Serializer):
    name = serializers.CharField(help_text="The member's name; R1, A1, O1 ... for people outside the study.")
    role = serializers.ChoiceField(choices=["owner", "rater", "adjudicator"])


class StudyProgressOutputSerializer(serializers.Serializer):
    scope = serializers.ChoiceField(
        choices=["study", "mine"],
        help_text=(
            "'study': counts over the whole study. 'mine': a rater of a blind, unpublished study sees only "
            "their own assignments, and resolved/pending are null (they would reveal whether the other "
            "rater agreed)."
        ),
    )
    issues = serializers.IntegerField(help_text="Issues drawn into the study.")
    assignments = serializers.IntegerField(help_text="Assignments (only mine when scope is 'mine').")
    submitted = serializers.IntegerField(help_text="Assignments submitted (only mine when scope is 'mine').")
    skipped = serializers.IntegerField(help_text="Assignments skipped (only mine when scope is 'mine').")
    resolved = serializers.IntegerField(allow_null=True, help_text="Issues with a final label; null for 'mine'.")
    pending = serializers.IntegerField(
        allow_null=True,
        help_text="Issues labelled by all raters and not yet resolved (waiting or sent back); null for 'mine'.",
    )


class StudyOutputSerializer(serializers.ModelSerializer):
    """A study; ``members`` and ``progress`` come from the view's context (computed in bounded queries)."""

    taxonomy = StudyTaxonomyOutputSerializer(source="taxonomy_version")
    dimensions = serializers.SerializerMethodField()
    my_roles = serializers.SerializerMethodField()
    members = serializers.SerializerMethodField()
    progress = serializers.SerializerMethodField()
    public_url = serializers.SerializerMethodField()

    class Meta:
        model = Study
        fields = [
            "id",
            "name",
            "slug",
            "description",
            "phase",
            "blind",
            "raters_per_issue",
            "agreement_threshold",
            "taxonomy",
            "dimensions",
            "my_roles",
            "members",
            "progress",
            "public_url",
            "created_at",
        ]

    def get_dimensions(self, study: Study) -> list[str]:
        return sorted(d.key for d in study.dimensions.all())

    def get_my_roles(self, study: Study) -> list[str]:
        user = self.context["request"].user
        return sorted({m.role for m in study.members.all() if m.user_id == user.pk})

    @extend_schema_field(StudyMemberOutputSerializer(many=True))
    def get_members(self, study: Study) -> list[dict]:
        return self.context["members"][study.pk]

    @extend_schema_field(StudyProgressOutputSerializer)
    def get_progress(self, study: Study) -> dict:
        return self.context["progress"][study.pk]

    def get_public_url(self, study: Study) -> str | None:
        """The study's public API address once published; null before."""
        if study.phase != Study.Phase.PUBLISHED:
            return None
        return self.context["request"].build_absolute_uri(reverse("api:public_study", args=[study.slug]))


class CategoryCountOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    code = serializers.CharField()
    name = serializers.CharField()
    parent = serializers.IntegerField(allow_null=True, help_text="Id of the parent category; null at the top.")
    selectable = serializers.BooleanField(help_text="False for grouping categories that raters cannot choose.")
    count = serializers.IntegerField(help_text="Times this category itself was chosen.")
    total = serializers.IntegerField(help_text="Times it or any category below it was chosen.")


class DimensionCountsOutputSerializer(serializers.Serializer):
    key = serializers.CharField()
    name = serializers.CharField()
    multi_valued = serializers.BooleanField()
    categories = CategoryCountOutputSerializer(many=True)


class CategoryCountsOutputSerializer(serializers.Serializer):
    study = serializers.IntegerField()
    source = serializers.ChoiceField(choices=["final", "raters"])
    issues = serializers.IntegerField(help_text="Resolved issues (final) or submitted annotations (raters).")
    excluded = serializers.IntegerField(help_text="Of those, excluded as not a bug or out of scope.")
    dimensions = DimensionCountsOutputSerializer(many=True)


class ImportJobOutputSerializer(serializers.ModelSerializer):
    created_by = serializers.SerializerMethodField()
    page_url = serializers.SerializerMethodField()

    class Meta:
        model = ImportJob
        fields = [
            "id",
            "kind",
            "status",
            "parameters",
            "counts",
            "progress_done",
            "progress_total",
            "error",
            "created_by",
            "created_at",
            "started_at",
            "finished_at",
            "resume_at",
            "page_url",
        ]

    def get_created_by(self, job: ImportJob) -> str | None:
        return job.created_by.username if job.created_by_id else None

    def get_page_url(self, job: ImportJob) -> str:
        return reverse("annotator:import_detail", args=[job.pk])


class ImportJobDetailOutputSerializer(ImportJobOutputSerializer):
    problems = serializers.JSONField(help_text="Records that could not be imported, with the reason for each.")

    class Meta(ImportJobOutputSerializer.Meta):
        fields = [*ImportJobOutputSerializer.Meta.fields, "problems"]
