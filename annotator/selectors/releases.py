"""Reads of releases, for everyone (no login): which releases can be read, and their frozen files.

A release is visible unless its latest visibility change hid it. Public pages and the public API read only
visible releases' files, never the study's live data, so what was published reads the same forever. A hidden
release, an unknown number and an unpublished study all answer the same 404.
"""

import json
from collections.abc import Sequence
from typing import Any

from django.db.models import BooleanField, Exists, OuterRef, QuerySet, Subquery, Value
from django.db.models.functions import Coalesce
from django.http import Http404

from annotator.models import Release, ReleaseFile, ReleaseVisibilityChange, Study

NOT_FOUND = "No published release has this address."


def _shown():
    latest = ReleaseVisibilityChange.objects.filter(release=OuterRef("pk")).order_by("-id").values("visible")[:1]
    return Coalesce(Subquery(latest, output_field=BooleanField()), Value(True))


def releases_with_visibility(*, study: Study) -> QuerySet[Release]:
    """Every release of the study, each with ``shown`` (whether it can be read now)."""
    return Release.objects.filter(study=study).annotate(shown=_shown()).order_by("number")


def visible_releases(*, study: Study) -> QuerySet[Release]:
    return releases_with_visibility(study=study).filter(shown=True)


def _visible() -> QuerySet[Release]:
    return Release.objects.annotate(shown=_shown()).filter(shown=True)


def latest_visible_releases() -> QuerySet[Release]:
    """The latest visible release of every study that has one, by study name (one query, any number of studies)."""
    newer = _visible().filter(study=OuterRef("study"), number__gt=OuterRef("number"))
    return (
        _visible()
        .filter(~Exists(newer))
        .select_related("study", "taxonomy_version__taxonomy")
        .order_by("study__name", "study_id")
    )


def public_release_get(*, slug: str, number: int | None = None) -> Release:
    """Release ``number`` of the study with this slug, or its latest visible release; 404 unless visible."""
    releases = _visible().filter(study__slug=slug).select_related("study", "taxonomy_version__taxonomy")
    release = (releases.filter(number=number) if number is not None else releases.order_by("-number")).first()
    if release is None:
        raise Http404(NOT_FOUND)
    return release


def release_file_get(*, release: Release, name: str) -> ReleaseFile:
    found = ReleaseFile.objects.filter(release=release, name=name).first()
    if found is None:
        raise Http404(f"Release {release.number} has no file '{name[:100]}'.")
    return found


def release_file_list(*, release: Release) -> list[dict[str, Any]]:
    """Name, type, size and SHA-256 of each file (not their bytes)."""
    return list(
        ReleaseFile.objects.filter(release=release).order_by("name").values("name", "content_type", "size", "sha256")
    )


def release_json(*, release: Release, name: str) -> Any:
    return json.loads(bytes(release_file_get(release=release, name=name).content))


class FrozenRows(Sequence):
    """The rows of a frozen JSON Lines file, decoded only when read: a page of an anonymous public request decodes
    its own rows, not the whole dataset (each decoded row takes several times its bytes)."""

    def __init__(self, content: bytes):
        self._lines = [line for line in bytes(content).split(b"\n") if line.strip()]

    def __len__(self) -> int:
        return len(self._lines)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [json.loads(line) for line in self._lines[index]]
        return json.loads(self._lines[index])


def release_dataset(*, release: Release) -> FrozenRows:
    """The release's dataset rows, as frozen (a sequence: slice it for a page)."""
    return FrozenRows(release_file_get(release=release, name="dataset.jsonl").content)
