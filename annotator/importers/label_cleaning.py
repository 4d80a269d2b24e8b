"""Cleaning hand-typed labels: normalisation, near-duplicate suggestions and reproducible label mappings.

Pure Python (no Django), so the import service, the ``import_sheets`` command and the upload page share one
definition of "the same label". The API:

- ``normalise_label(text, missing=DEFAULT_MISSING) -> str | None``: the form labels are compared in. Unicode
  NFKC, casefold, "&" read as "and", no spaces around "/", runs of whitespace collapsed, ends stripped. Blank
  cells and the missing markers (default ``{"PENDING"}``, compared after the same normalisation, so case does
  not matter) give ``None``: "not labelled". Idempotent.
- ``display_form(spellings) -> str``: the most frequent original spelling of a label (outer whitespace stripped),
  for showing a normalised label to a person.
- ``suggest_merges(label_counts, max_distance=2, missing=DEFAULT_MISSING, preferred=()) ->
  list[MergeSuggestion]``: near-duplicates of one dimension's labels (typos such as "fix netowrk setting"),
  each suggesting that the rarer spelling be merged into the more frequent one; labels that look like a
  misspelt missing marker ("pening") are suggested to become "not labelled" (``to_label=None``). Suggestions
  are for a person to accept or reject, never applied silently.
- ``read_label_mapping(path)`` / ``write_label_mapping(path, mapping)``: the accepted decisions as a CSV file
  with header ``dimension,from,to``; a blank dimension applies to all dimensions, a blank ``to`` means "not
  labelled". Keep the file with the study so an import can be repeated exactly.
- ``mapping_from_suggestions(suggestions, dimension=None)``: turn accepted suggestions into mapping entries.
- ``lookup_mapping(mapping, dimension, label)``: what one label becomes under a mapping (dimension-specific
  entries win over blank-dimension ones; one pass, no chaining).

A mapping is ``dict[tuple[str | None, str], str | None]``: ``(dimension or None, normalised from) -> normalised
to or None``.
"""

import csv
import unicodedata
from collections import Counter
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

DEFAULT_MISSING: frozenset[str] = frozenset({"PENDING"})

LabelMapping = dict[tuple[str | None, str], str | None]

MAPPING_HEADER = ("dimension", "from", "to")


class LabelMappingError(ValueError):
    """A label mapping file that cannot be used as it is; the message names the line to fix."""


def _fold(text: str) -> str:
    # NFKC before and after casefold: casefolding can leave compatibility forms that NFKC then composes,
    # and normalising twice must give the same result.
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())
    folded = folded.replace("&", " and ")
    folded = "/".join(part.strip() for part in folded.split("/"))
    return " ".join(folded.split())


def _missing_forms(missing: Iterable[str]) -> frozenset[str]:
    return frozenset(_fold(marker) for marker in missing)


def normalise_label(text: object, missing: Iterable[str] = DEFAULT_MISSING) -> str | None:
    """The comparable form of a label, or None when the cell means "not labelled" (blank or a missing marker)."""
    if text is None:
        return None
    folded = _fold(str(text))
    if not folded or folded in _missing_forms(missing):
        return None
    return folded


def display_form(spellings: Mapping[str, int]) -> str:
    """The most frequent original spelling (ties: the first seen), outer whitespace stripped."""
    if not spellings:
        return ""
    return Counter(spellings).most_common(1)[0][0].strip()


def allowed_distance(length: int, max_distance: int = 2) -> int:
    """How many edits two labels of this (shorter) length may differ by and still look like one label.

    Short labels are words in their own right ("oom", "cpu"): one edit turns one into another, so they are
    never suggested. Up to 15 characters one edit; two edits there already turn one real label into another
    ("syntext error" is not "context error"). From 16 characters on, two edits ("checkpoint nonfunctioning").
    """
    if length < 4:
        return 0
    if length < 16:
        return min(1, max_distance)
    return max_distance


@dataclass(frozen=True, slots=True)
class MergeSuggestion:
    """Merge ``from_label`` into ``to_label`` (None: treat ``from_label`` as "not labelled")."""

    from_label: str
    to_label: str | None
    distance: int
    from_count: int
    to_count: int

    def __str__(self) -> str:
        target = f"'{self.to_label}' ({self.to_count})" if self.to_label is not None else "not labelled"
        return f"'{self.from_label}' ({self.from_count}) -> {target}, {self.distance} edit(s)"


def _edits(a: str, b: str, limit: int) -> int | None:
    # Optimal string alignment: a swapped pair of letters ("netowrk") is one edit, as a person sees it.
    from rapidfuzz.distance import OSA  # imported where used: web workers that never clean labels skip it

    distance = OSA.distance(a, b, score_cutoff=limit)
    return distance if distance <= limit else None


def suggest_merges(
    label_counts: Mapping[str, int],
    *,
    max_distance: int = 2,
    missing: Iterable[str] = DEFAULT_MISSING,
    preferred: Collection[str] = (),
) -> list[MergeSuggestion]:
    """Near-duplicate labels of one dimension, each with the label it most likely misspells.

    ``label_counts`` maps normalised labels to how often they were used. A label is suggested to merge into a
    label within ``allowed_distance`` edits that is used more often (or, at equal counts, is in ``preferred`` —
    e.g. the taxonomy's category names — or sorts first); among several candidates the nearest, then the most
    used, wins. Labels this close to a missing marker are suggested to become "not labelled". Sorted by
    label. Suggestions are not chained: if b is suggested into c, a is still suggested into b, not c.
    """
    labels = sorted(label for label in label_counts if label)
    preferred_set = {form for form in (normalise_label(p, missing=()) for p in preferred) if form}
    markers = sorted(_missing_forms(missing))
    suggestions: list[MergeSuggestion] = []
    for label in labels:
        count = label_counts[label]
        marker_hits = [
            (d, m)
            for m in markers
            if (d := _edits(label, m, allowed_distance(min(len(label), len(m)), max_distance))) is not None
        ]
        if marker_hits:
            distance, _ = min(marker_hits)
            suggestions.append(MergeSuggestion(label, None, distance, count, 0))
            continue
        best: tuple[int, int, str] | None = None
        for other in labels:
            if other == label or not _outranks(other, label, label_counts, preferred_set):
                continue
            distance = _edits(label, other, allowed_distance(min(len(label), len(other)), max_distance))
            if distance is None:
                continue
            candidate = (distance, -label_counts[other], other)
            if best is None or candidate < best:
                best = candidate
        if best is not None:
            distance, _, target = best
            suggestions.append(MergeSuggestion(label, target, distance, count, label_counts[target]))
    return suggestions


def _outranks(other: str, label: str, counts: Mapping[str, int], preferred: Collection[str]) -> bool:
    """Whether ``label`` should merge into ``other`` rather than the other way round."""
    if counts[other] != counts[label]:
        return counts[other] > counts[label]
    if (other in preferred) != (label in preferred):
        return other in preferred
    return other < label


def mapping_from_suggestions(suggestions: Iterable[MergeSuggestion], dimension: str | None = None) -> LabelMapping:
    """Mapping entries for accepted suggestions, for one dimension (or all when ``dimension`` is None)."""
    return {(dimension, s.from_label): s.to_label for s in suggestions}


def lookup_mapping(
    mapping: Mapping[tuple[str | None, str], str | None], dimension: str, label: str | None
) -> str | None:
    """What ``label`` of ``dimension`` becomes: the dimension's own entry, else the all-dimensions one."""
    if label is None:
        return None
    if (dimension, label) in mapping:
        return mapping[(dimension, label)]
    return mapping.get((None, label), label)


def read_label_mapping(path: str | Path, *, missing: Iterable[str] = DEFAULT_MISSING) -> LabelMapping:
    """Read a ``dimension,from,to`` CSV into a mapping; labels are normalised, so any spelling of them works."""
    path = Path(path)
    with path.open(newline="", encoding="utf-8-sig") as handle:
        reader = csv.reader(handle)
        header = next(reader, None)
        if header is None or tuple(cell.strip().casefold() for cell in header[:3]) != MAPPING_HEADER:
            raise LabelMappingError(f"{path.name} line 1: the header must be 'dimension,from,to'.")
        mapping: LabelMapping = {}
        for line, row in enumerate(reader, start=2):
            if not any(cell.strip() for cell in row):
                continue
            cells = [*row, "", "", ""][:3]
            dimension = cells[0].strip() or None
            source = normalise_label(cells[1], missing=())
            if source is None:
                raise LabelMappingError(f"{path.name} line {line}: 'from' is empty; write the label to replace.")
            target = normalise_label(cells[2], missing=missing)
            key = (dimension, source)
            if key in mapping and mapping[key] != target:
                raise LabelMappingError(
                    f"{path.name} line {line}: '{source}' is already mapped to '{mapping[key]}' "
                    f"for {dimension or 'all dimensions'}; keep one of the two lines."
                )
            mapping[key] = target
    return mapping


def write_label_mapping(path: str | Path, mapping: Mapping[tuple[str | None, str], str | None]) -> None:
    """Write a mapping as a ``dimension,from,to`` CSV, sorted so that two writes of one mapping are identical."""
    rows = sorted(((dim or "", source, target or "") for (dim, source), target in mapping.items()))
    with Path(path).open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(MAPPING_HEADER)
        writer.writerows(rows)
