"""Taxonomy test data: a category tree built with the factories, and a small valid template to load or break."""

import copy
import json
from pathlib import Path

from taxonomy.models import Dimension
from tests.factories import CategoryFactory


def build_tree(dimension: Dimension, *, roots: int, children: int, grandchildren: int) -> int:
    """A three-level tree under a dimension; returns the number of categories made."""
    made = 0
    for r in range(roots):
        root = CategoryFactory(dimension=dimension, code=f"r{r}", selectable=False)
        made += 1
        for c in range(children):
            child = CategoryFactory(dimension=dimension, parent=root, code=f"r{r}.c{c}", selectable=False)
            made += 1
            for g in range(grandchildren):
                CategoryFactory(dimension=dimension, parent=child, code=f"r{r}.c{c}.g{g}", aliases=[f"G {g}"])
                made += 1
    return made


VALID_TEMPLATE = {
    "schema_version": 1,
    "slug": "tiny",
    "name": "A tiny taxonomy",
    "description": "For tests.",
    "citation": "Someone, Something, 2024.",
    "license": "CC-BY-4.0",
    "attribution": "Made for tests.",
    "dimensions": [
        {
            "key": "issue_type",
            "name": "Issue type",
            "categories": [{"code": "fault", "name": "fault"}, {"code": "question", "name": "question"}],
        },
        {
            "key": "symptom",
            "name": "Symptom",
            "help_text": "How it shows.",
            "level_names": ["stage", "leaf"],
            "applies_when": {"issue_type": ["fault"]},
            "categories": [
                {
                    "code": "setup",
                    "name": "setup",
                    "children": [
                        {"code": "setup.hang", "name": "hang", "aliases": ["Hang "], "distributed_specific": True},
                        {"code": "setup.crash", "name": "crash", "provenance": "a paper", "examples": ["#12"]},
                    ],
                },
                {"code": "other", "name": "other"},
            ],
        },
        {"key": "fix", "name": "Fix", "multi_valued": True, "required": False, "categories": []},
    ],
}


def template(**changes) -> dict:
    data = copy.deepcopy(VALID_TEMPLATE)
    data.update(changes)
    return data


def write_template(directory: Path, data: dict | str, name: str = "tiny.json") -> Path:
    path = directory / name
    path.write_text(data if isinstance(data, str) else json.dumps(data, indent=2), encoding="utf-8")
    return path
