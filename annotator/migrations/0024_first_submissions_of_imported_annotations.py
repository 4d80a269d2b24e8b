"""Give a first submission to every annotation that still has none, by the rule of 0012.

An import of a replication package written before the package carried the raters' first submissions (its
`independent` layer) wrote none for its annotations, though their imported labels were the first submission:
sending such an issue back (or reopening it by a version move) and resubmitting then recorded the revised
labels as the first one. The import now records them; this backfills the annotations imported before.

As in 0012, the first "submit" entry of an annotation's history (the import writes one with the imported
labels) holds what was submitted first, and when (its snapshot's submitted_at: for an import the package's,
as the import now records it; else the entry's time). A submitted annotation with no such entry was never
revised in the app, so its current labels are. Only inserts: a first submission already recorded (even a
wrong one, written by a resubmit before this fix) is append-only and left as it is. A category id that no
longer exists stops the migration rather than dropping a label.
"""

from django.db import migrations
from django.utils.dateparse import parse_datetime


def _when(value):
    """The submitted_at the entry's snapshot holds: for an import, the package's (the entry is the import's)."""
    return parse_datetime(value) if isinstance(value, str) and value else None


def backfill_first_submissions(apps, schema_editor):
    Annotation = apps.get_model("annotator", "Annotation")
    AnnotationHistory = apps.get_model("annotator", "AnnotationHistory")
    Category = apps.get_model("taxonomy", "Category")
    FirstSubmission = apps.get_model("annotator", "FirstSubmission")
    FirstSubmissionValue = apps.get_model("annotator", "FirstSubmissionValue")

    unrecorded = Annotation.objects.filter(first_submission__isnull=True)
    first_submits = {}
    entries = AnnotationHistory.objects.filter(action="submit", annotation__in=unrecorded.values("pk"))
    for entry in entries.order_by("annotation_id", "at", "id").iterator():
        first_submits.setdefault(entry.annotation_id, entry)
    submitted = unrecorded.filter(submitted_at__isnull=False).values_list("pk", flat=True)
    candidates = set(first_submits) | set(submitted)
    annotations = Annotation.objects.filter(pk__in=candidates).select_related("assignment").order_by("pk")
    for annotation in annotations.iterator():
        entry = first_submits.get(annotation.pk)
        if entry is not None:
            after = entry.after or {}
            values = after.get("values") or {}
            category_ids = sorted({int(pk) for ids in values.values() for pk in ids})
            fields = {
                "submitted_at": _when(after.get("submitted_at")) or entry.at,
                "excluded": bool(after.get("excluded")),
                "excluded_reason": after.get("excluded_reason") or "",
                "proposals": after.get("proposals") or {},
                "confidence": after.get("confidence"),
                "note": after.get("note") or "",
                "source": "history",
            }
            if fields["excluded"] and not fields["excluded_reason"]:
                fields["excluded_reason"] = "not_a_bug"
        else:
            category_ids = sorted(annotation.values.values_list("category_id", flat=True))
            fields = {
                "submitted_at": annotation.submitted_at,
                "excluded": annotation.excluded,
                "excluded_reason": annotation.excluded_reason,
                "proposals": annotation.proposals or {},
                "confidence": annotation.confidence,
                "note": annotation.note,
                "source": "history",
            }
        dimensions = dict(Category.objects.filter(pk__in=category_ids).values_list("pk", "dimension_id"))
        missing = sorted(set(category_ids) - set(dimensions))
        if missing:
            raise RuntimeError(
                f"Annotation {annotation.pk} was first submitted with categories {missing}, which no longer "
                "exist; restore them before migrating so its first submission is not lost."
            )
        snapshot = FirstSubmission.objects.create(
            annotation_id=annotation.pk,
            study_issue_id=annotation.assignment.study_issue_id,
            rater_id=annotation.assignment.rater_id,
            **fields,
        )
        FirstSubmissionValue.objects.bulk_create(
            FirstSubmissionValue(first_submission=snapshot, dimension_id=dimensions[pk], category_id=pk)
            for pk in category_ids
        )


class Migration(migrations.Migration):
    dependencies = [("annotator", "0023_append_only_guards"), ("taxonomy", "0002_evolution_lineage")]

    operations = [migrations.RunPython(backfill_first_submissions, migrations.RunPython.noop)]
