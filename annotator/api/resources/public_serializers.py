"""Shapes of the public (no login) API of published studies. Raters appear as R1, R2, ..."""

from rest_framework import serializers

from annotator.api.exports import FindingsTestOutputSerializer, ReportTableOutputSerializer


class PublicCategoryOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    code = serializers.CharField()
    name = serializers.CharField()
    parent = serializers.IntegerField(allow_null=True)
    depth = serializers.IntegerField(help_text="1 at the top of the tree.")
    selectable = serializers.BooleanField()
    definition = serializers.CharField()
    examples = serializers.ListField(child=serializers.JSONField())
    provenance = serializers.CharField(help_text="Where the category comes from (a paper, open coding, ...).")
    distributed_specific = serializers.BooleanField(allow_null=True)
    deprecated = serializers.BooleanField()
    count = serializers.IntegerField(help_text="Resolved issues whose final label is this category itself.")
    total = serializers.IntegerField(help_text="Resolved issues labelled with it or any category below it.")


class PublicDimensionOutputSerializer(serializers.Serializer):
    key = serializers.CharField()
    name = serializers.CharField()
    help_text = serializers.CharField()
    multi_valued = serializers.BooleanField()
    required = serializers.BooleanField()
    categories = PublicCategoryOutputSerializer(many=True, help_text="Depth first, parents before children.")


class PublicTaxonomyOutputSerializer(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField()
    version = serializers.IntegerField()
    citation = serializers.CharField()
    license = serializers.CharField()


class PublicLinksOutputSerializer(serializers.Serializer):
    page = serializers.URLField()
    self = serializers.URLField()
    dataset = serializers.URLField()
    dataset_csv = serializers.URLField()
    agreement = serializers.URLField()
    findings = serializers.URLField()
    releases = serializers.URLField(help_text="The study's visible releases.")
    release = serializers.URLField(
        required=False, help_text="The stable address of the release shown (on the unversioned addresses only)."
    )


class PublicReleaseOutputSerializer(serializers.Serializer):
    number = serializers.IntegerField(
        help_text="1 for the first publication, n+1 each time the study is published again."
    )
    published_at = serializers.DateTimeField()
    change_note = serializers.CharField(help_text="What changed since the previous release; empty for release 1.")
    citation = serializers.CharField(help_text="The suggested citation, with the release number and date.")
    url = serializers.URLField(help_text="The release's stable API address.")
    page = serializers.URLField(help_text="The release's public page.")


class PublicReleaseFileOutputSerializer(serializers.Serializer):
    name = serializers.CharField()
    content_type = serializers.CharField()
    size = serializers.IntegerField(help_text="Bytes.")
    sha256 = serializers.CharField(help_text="SHA-256 of the bytes, as in the release's SHA256SUMS.")
    url = serializers.URLField()


class PublicStudySummaryOutputSerializer(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField()
    description = serializers.CharField()
    published_at = serializers.DateTimeField(help_text="When the release shown was published.")
    release = PublicReleaseOutputSerializer(help_text="Which release this is.")
    raters_per_issue = serializers.IntegerField()
    taxonomy = PublicTaxonomyOutputSerializer()
    issues = serializers.IntegerField(help_text="Issues with a final label.")
    excluded = serializers.IntegerField(help_text="Of those, excluded as not a bug or out of scope.")
    links = PublicLinksOutputSerializer()


class PublicStudyOutputSerializer(PublicStudySummaryOutputSerializer):
    dimensions = PublicDimensionOutputSerializer(many=True)
    files = PublicReleaseFileOutputSerializer(
        many=True, required=False, help_text="The release's frozen files (on a release's own address only)."
    )


class PublicIssueOutputSerializer(serializers.Serializer):
    url = serializers.URLField()
    repository = serializers.CharField(allow_null=True)
    number = serializers.IntegerField(allow_null=True)
    kind = serializers.CharField()
    title = serializers.CharField()


class PublicIndependentLabelsOutputSerializer(serializers.Serializer):
    excluded = serializers.BooleanField()
    excluded_reason = serializers.CharField()
    labels = serializers.DictField(child=serializers.ListField(child=serializers.CharField()))
    proposals = serializers.DictField(child=serializers.CharField())


class PublicRaterLabelsOutputSerializer(serializers.Serializer):
    rater = serializers.CharField(help_text="R1, R2, ...: the same pseudonym for the same rater everywhere.")
    excluded = serializers.BooleanField()
    excluded_reason = serializers.CharField()
    labels = serializers.DictField(
        child=serializers.ListField(child=serializers.CharField()),
        help_text="The rater's labels now: revised after discussion if the issue was sent back.",
    )
    proposals = serializers.DictField(child=serializers.CharField(), help_text="Proposed new categories per key.")
    independent = PublicIndependentLabelsOutputSerializer(
        allow_null=True,
        help_text=(
            "The rater's first, independent submission (before any discussion): what inter-rater reliability "
            "is computed from. Null when the study holds no record of it."
        ),
    )


class PublicDatasetRowOutputSerializer(serializers.Serializer):
    position = serializers.IntegerField()
    round = serializers.IntegerField()
    issue = PublicIssueOutputSerializer()
    excluded = serializers.BooleanField()
    labels = serializers.DictField(
        child=serializers.ListField(child=serializers.CharField()), help_text="Final category codes per dimension key."
    )
    methods = serializers.DictField(child=serializers.CharField())
    method = serializers.CharField()
    disagreements = serializers.ListField(child=serializers.CharField())
    disagreement_reason = serializers.CharField()
    note = serializers.CharField(help_text="The adjudicator's note, with people's names replaced by pseudonyms.")
    raters = PublicRaterLabelsOutputSerializer(many=True)


class PublicFindingsStudyOutputSerializer(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField()


class PublicFindingsOutputSerializer(serializers.Serializer):
    """A release's findings.json (with the release it is from): what the live findings API answered at publication."""

    study = PublicFindingsStudyOutputSerializer()
    issues = serializers.IntegerField(help_text="Issues with a final label (resolved, not excluded).")
    issues_with_fix = serializers.IntegerField(
        help_text="Of those, the issues whose linked fix has fix data; 0 leaves only the tables of final labels."
    )
    tables = ReportTableOutputSerializer(many=True)
    tests = FindingsTestOutputSerializer(many=True, help_text="Every statistical test, unpaged.")
    release = PublicReleaseOutputSerializer(help_text="Which release this is.")
