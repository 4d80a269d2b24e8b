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


BATCH = 2000


def backfill_first_submissions(apps, schema_editor):
    Annotation = apps.get_model("annotator", "Annotation")
    AnnotationHistory = apps.get_model("annotator", "AnnotationHistory")
    AnnotationValue = apps.get_model("annotator", "AnnotationValue")
    Category = apps.get_model("taxonomy", "Category")
    FirstSubmission = apps.get_model("annotator", "FirstSubmission")
    FirstSubmissionValue = apps.get_model("annotator", "FirstSubmissionValue")

    unrecorded = Annotation.objects.filter(first_submission__isnull=True)
    first_submits = {}
    entries = AnnotationHistory.objects.filter(action="submit", annotation__in=unrecorded.values("pk"))
    for entry in entries.order_by("annotation_id", "at", "id").iterator(chunk_size=BATCH):
        first_submits.setdefault(entry.annotation_id, entry)
    submitted = unrecorded.filter(submitted_at__isnull=False).values_list("pk", flat=True)
    candidates = sorted(set(first_submits) | set(submitted))
    dimensions = {}  # category id -> dimension id, read once per batch for the ids not seen yet
    # Batches: a database built without first submissions (the benchmarks' is) may hold a hundred thousand.
    for start in range(0, len(candidates), BATCH):
        batch = list(Annotation.objects.filter(pk__in=candidates[start : start + BATCH]).select_related("assignment"))
        current = {}
        values = AnnotationValue.objects.filter(annotation_id__in=[a.pk for a in batch if a.pk not in first_submits])
        for annotation_id, category_id in values.values_list("annotation_id", "category_id"):
            current.setdefault(annotation_id, set()).add(category_id)
        drafts = [_draft(annotation, first_submits.get(annotation.pk), current) for annotation in batch]
        unseen = {pk for _, category_ids, _ in drafts for pk in category_ids} - dimensions.keys()
        dimensions.update(Category.objects.filter(pk__in=unseen).values_list("pk", "dimension_id"))
        for annotation, category_ids, _ in drafts:
            missing = sorted(set(category_ids) - dimensions.keys())
            if missing:
                raise RuntimeError(
                    f"Annotation {annotation.pk} was first submitted with categories {missing}, which no longer "
                    "exist; restore them before migrating so its first submission is not lost."
                )
        created = FirstSubmission.objects.bulk_create(
            FirstSubmission(
                annotation_id=annotation.pk,
                study_issue_id=annotation.assignment.study_issue_id,
                rater_id=annotation.assignment.rater_id,
                **fields,
            )
            for annotation, _, fields in drafts
        )
        FirstSubmissionValue.objects.bulk_create(
            (
                FirstSubmissionValue(first_submission_id=snapshot.pk, dimension_id=dimensions[pk], category_id=pk)
                for snapshot, (_, category_ids, _) in zip(created, drafts, strict=True)
                for pk in category_ids
            ),
            batch_size=BATCH,
        )


def _draft(annotation, entry, current: dict) -> tuple:
    """(annotation, its first submission's category ids, the first submission's fields): from the first submit
    entry of its history when there is one, else from the annotation as it stands."""
    if entry is not None:
        after = entry.after or {}
        values = after.get("values") or {}
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
        return annotation, sorted({int(pk) for ids in values.values() for pk in ids}), fields
    fields = {
        "submitted_at": annotation.submitted_at,
        "excluded": annotation.excluded,
        "excluded_reason": annotation.excluded_reason,
        "proposals": annotation.proposals or {},
        "confidence": annotation.confidence,
        "note": annotation.note,
        "source": "history",
    }
    return annotation, sorted(current.get(annotation.pk, ())), fields


class Migration(migrations.Migration):
    dependencies = [("annotator", "0023_append_only_guards"), ("taxonomy", "0002_evolution_lineage")]

    operations = [migrations.RunPython(backfill_first_submissions, migrations.RunPython.noop)]
