"""The taxonomy template format: parse and validate a template into plain records.

Pure (no Django): the loading service persists what `parse_template` returns. Every problem
is reported with the file name and the JSON path it concerns, all at once, so an author
can fix a template in one pass. The format is documented in docs/taxonomy-templates.md.
"""

import hashlib
import json
import re
from dataclasses import dataclass, field
from typing import Any

SCHEMA_VERSION = 1
SLUG_RE = re.compile(r"^[a-z0-9]+(?:[-_][a-z0-9]+)*$")
# Category codes may carry their path ("stage.inner.leaf") so they stay unique per dimension.
CODE_RE = re.compile(r"^[a-z0-9]+(?:[-_.][a-z0-9]+)*$")
MAX_DEPTH = 8  # deeper trees are unreadable for raters and almost certainly a template mistake

TAXONOMY_FIELDS = {"schema_version", "slug", "name", "description", "citation", "license", "attribution", "changelog"}
DIMENSION_FIELDS = {
    "key",
    "name",
    "help_text",
    "multi_valued",
    "required",
    "order",
    "level_names",
    "applies_when",
    "categories",
}
CATEGORY_FIELDS = {
    "code",
    "name",
    "definition",
    "examples",
    "provenance",
    "distributed_specific",
    "aliases",
    "selectable",
    "deprecated",
    "children",
}


@dataclass(slots=True)
class CategoryRecord:
    code: str
    name: str
    definition: str = ""
    examples: list[str] = field(default_factory=list)
    provenance: str = ""
    distributed_specific: bool | None = None
    aliases: list[str] = field(default_factory=list)
    selectable: bool = True
    deprecated: bool = False
    children: list["CategoryRecord"] = field(default_factory=list)


@dataclass(slots=True)
class DimensionRecord:
    key: str
    name: str
    order: int
    help_text: str = ""
    multi_valued: bool = False
    required: bool = True
    level_names: list[str] = field(default_factory=list)
    applies_when: dict[str, list[str]] = field(default_factory=dict)
    categories: list[CategoryRecord] = field(default_factory=list)


@dataclass(slots=True)
class TemplateRecord:
    slug: str
    name: str
    description: str = ""
    citation: str = ""
    license: str = ""
    attribution: str = ""
    changelog: str = ""
    dimensions: list[DimensionRecord] = field(default_factory=list)
    sha256: str = ""

    @property
    def category_count(self) -> int:
        return sum(count_categories(d.categories) for d in self.dimensions)


@dataclass(frozen=True, slots=True)
class Problem:
    path: str
    message: str

    def format(self, filename: str) -> str:
        return f"{filename}: {self.path}: {self.message}"


class TemplateInvalid(Exception):
    """A template that cannot be loaded; `problems` lists every one with its JSON path."""

    def __init__(self, filename: str, problems: list[Problem]):
        self.filename = filename
        self.problems = problems
        super().__init__("\n".join(p.format(filename) for p in problems))

    @property
    def lines(self) -> list[str]:
        return [p.format(self.filename) for p in self.problems]


def count_categories(categories: list[CategoryRecord]) -> int:
    return sum(1 + count_categories(c.children) for c in categories)


def tree_depth(categories: list[CategoryRecord]) -> int:
    return max((1 + tree_depth(c.children) for c in categories), default=0)


def content_sha256(data: Any) -> str:
    """Checksum of the template's content, not its bytes: re-indenting a file is not a change."""
    canonical = json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def parse_template(text: str | bytes, *, filename: str) -> TemplateRecord:
    """Parse and validate template JSON; raise TemplateInvalid listing every problem."""
    try:
        data = json.loads(text)
    except UnicodeDecodeError as exc:
        raise TemplateInvalid(filename, [Problem("$", f"not UTF-8 text ({exc.reason})")]) from exc
    except json.JSONDecodeError as exc:
        raise TemplateInvalid(
            filename, [Problem("$", f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}")]
        ) from exc
    checker = _Checker()
    record = checker.template(data)
    if checker.problems or record is None:
        raise TemplateInvalid(filename, checker.problems)
    record.sha256 = content_sha256(data)
    return record


class _Checker:
    """Walks the JSON once, collecting problems instead of stopping at the first."""

    def __init__(self) -> None:
        self.problems: list[Problem] = []

    def problem(self, path: str, message: str) -> None:
        self.problems.append(Problem(path, message))

    # Field readers: return a usable value (the default when absent or wrong) and record problems.

    def string(self, obj: dict, key: str, path: str, *, required: bool = False, max_length: int | None = None) -> str:
        here = f"{path}.{key}"
        if key not in obj or obj[key] is None:
            if required:
                self.problem(here, "required")
            return ""
        value = obj[key]
        if not isinstance(value, str):
            self.problem(here, f"must be a string, got {_json_type(value)}")
            return ""
        if required and not value.strip():
            self.problem(here, "required (must not be empty)")
        if max_length is not None and len(value) > max_length:
            self.problem(here, f"too long ({len(value)} characters, at most {max_length})")
        return value.strip() if required else value

    def boolean(self, obj: dict, key: str, path: str, default: bool | None, *, nullable: bool = False) -> bool | None:
        if key not in obj:
            return default
        value = obj[key]
        if value is None and nullable:
            return None
        if not isinstance(value, bool):
            allowed = "true, false or null" if nullable else "true or false"
            self.problem(f"{path}.{key}", f"must be {allowed}, got {_json_type(value)}")
            return default
        return value

    def string_list(self, obj: dict, key: str, path: str) -> list[str]:
        here = f"{path}.{key}"
        value = obj.get(key, [])
        if not isinstance(value, list):
            self.problem(here, f"must be a list of strings, got {_json_type(value)}")
            return []
        result = []
        for i, item in enumerate(value):
            if isinstance(item, str) and item.strip():
                result.append(item)
            else:
                self.problem(f"{here}[{i}]", f"must be a non-empty string, got {_json_type(item)}")
        return result

    def obj(self, value: Any, path: str, allowed: set[str]) -> dict | None:
        if not isinstance(value, dict):
            self.problem(path, f"must be an object, got {_json_type(value)}")
            return None
        for key in sorted(set(value) - allowed):
            self.problem(f"{path}.{key}", f"unknown field (allowed: {', '.join(sorted(allowed))})")
        return value

    def slug(self, obj: dict, key: str, path: str, pattern: re.Pattern, max_length: int) -> str:
        value = self.string(obj, key, path, required=True, max_length=max_length)
        if value and not pattern.match(value):
            self.problem(
                f"{path}.{key}", f"{value!r} must be lower-case letters and digits joined by single '-', '_' or '.'"
            )
        return value

    # The three levels of a template.

    def template(self, data: Any) -> TemplateRecord | None:
        root = self.obj(data, "$", TAXONOMY_FIELDS | {"dimensions"})
        if root is None:
            return None
        if "schema_version" in root and root["schema_version"] != SCHEMA_VERSION:
            self.problem(
                "$.schema_version", f"unsupported version {root['schema_version']!r} (this reads {SCHEMA_VERSION})"
            )
        record = TemplateRecord(
            slug=self.slug(root, "slug", "$", SLUG_RE, 80),
            name=self.string(root, "name", "$", required=True, max_length=200),
            description=self.string(root, "description", "$"),
            citation=self.string(root, "citation", "$"),
            license=self.string(root, "license", "$", max_length=100),
            attribution=self.string(root, "attribution", "$"),
            changelog=self.string(root, "changelog", "$"),
        )
        dimensions = root.get("dimensions")
        if dimensions is None:
            self.problem("$.dimensions", "required")
            return record
        if not isinstance(dimensions, list) or not dimensions:
            self.problem("$.dimensions", f"must be a non-empty list, got {_json_type(dimensions)}")
            return record
        seen: dict[str, int] = {}
        for i, item in enumerate(dimensions):
            dimension = self.dimension(item, f"$.dimensions[{i}]", position=i)
            if dimension is None:
                continue
            if dimension.key in seen:
                self.problem(
                    f"$.dimensions[{i}].key",
                    f"duplicate key {dimension.key!r} (also $.dimensions[{seen[dimension.key]}])",
                )
            elif dimension.key:
                seen[dimension.key] = i
            record.dimensions.append(dimension)
        self.conditions(record, dimensions)
        return record

    def dimension(self, value: Any, path: str, *, position: int) -> DimensionRecord | None:
        obj = self.obj(value, path, DIMENSION_FIELDS)
        if obj is None:
            return None
        order = obj.get("order", position)
        if isinstance(order, bool) or not isinstance(order, int) or order < 0:
            self.problem(f"{path}.order", f"must be a whole number from 0, got {order!r}")
            order = position
        record = DimensionRecord(
            key=self.slug(obj, "key", path, SLUG_RE, 60),
            name=self.string(obj, "name", path, required=True, max_length=120),
            order=order,
            help_text=self.string(obj, "help_text", path),
            multi_valued=bool(self.boolean(obj, "multi_valued", path, False)),
            required=bool(self.boolean(obj, "required", path, True)),
            level_names=self.string_list(obj, "level_names", path),
        )
        categories = obj.get("categories")
        if categories is None:
            self.problem(f"{path}.categories", "required (use [] for a dimension to be filled by open coding)")
        elif not isinstance(categories, list):
            self.problem(f"{path}.categories", f"must be a list, got {_json_type(categories)}")
        else:
            codes: dict[str, str] = {}
            record.categories = self.categories(categories, f"{path}.categories", codes, depth=1)
            depth = tree_depth(record.categories)
            if record.level_names and depth > len(record.level_names):
                self.problem(
                    f"{path}.level_names",
                    f"names {len(record.level_names)} levels but the category tree is {depth} deep",
                )
            if not _any_selectable(record.categories) and record.categories:
                self.problem(f"{path}.categories", "no category is selectable, so nothing could be chosen")
        return record

    def categories(self, items: list, path: str, codes: dict[str, str], *, depth: int) -> list[CategoryRecord]:
        result = []
        for i, item in enumerate(items):
            here = f"{path}[{i}]"
            obj = self.obj(item, here, CATEGORY_FIELDS)
            if obj is None:
                continue
            code = self.slug(obj, "code", here, CODE_RE, 120)
            if code in codes:
                self.problem(f"{here}.code", f"duplicate code {code!r} in this dimension (also {codes[code]})")
            elif code:
                codes[code] = here
            children_value = obj.get("children", [])
            children: list[CategoryRecord] = []
            if not isinstance(children_value, list):
                self.problem(f"{here}.children", f"must be a list, got {_json_type(children_value)}")
            elif children_value and depth >= MAX_DEPTH:
                self.problem(f"{here}.children", f"the tree may be at most {MAX_DEPTH} levels deep")
            else:
                children = self.categories(children_value, f"{here}.children", codes, depth=depth + 1)
            examples = self.string_list(obj, "examples", here)
            aliases = self.string_list(obj, "aliases", here)
            result.append(
                CategoryRecord(
                    code=code,
                    name=self.string(obj, "name", here, required=True, max_length=200),
                    definition=self.string(obj, "definition", here),
                    examples=examples,
                    provenance=self.string(obj, "provenance", here),
                    distributed_specific=self.boolean(obj, "distributed_specific", here, None, nullable=True),
                    aliases=aliases,
                    # Grouping nodes are not labels unless the template says so; leaves are.
                    selectable=bool(self.boolean(obj, "selectable", here, not children_value)),
                    deprecated=bool(self.boolean(obj, "deprecated", here, False)),
                    children=children,
                )
            )
        return result

    def conditions(self, record: TemplateRecord, raw_dimensions: list) -> None:
        """applies_when: {"<other dimension key>": ["<category code>", ...]}, checked against the template."""
        codes_by_key = {d.key: _all_codes(d.categories) for d in record.dimensions}
        for i, raw in enumerate(raw_dimensions):
            if not isinstance(raw, dict) or "applies_when" not in raw:
                continue
            path = f"$.dimensions[{i}].applies_when"
            value = raw["applies_when"]
            if not isinstance(value, dict):
                self.problem(
                    path, f"must be an object mapping a dimension key to category codes, got {_json_type(value)}"
                )
                continue
            own_key = raw.get("key")
            conditions: dict[str, list[str]] = {}
            for key, codes in value.items():
                here = f"{path}.{key}"
                if key == own_key:
                    self.problem(here, "a dimension cannot depend on itself")
                    continue
                if key not in codes_by_key:
                    self.problem(here, f"no dimension with key {key!r} in this template")
                    continue
                if not isinstance(codes, list) or not codes:
                    self.problem(here, "must be a non-empty list of category codes")
                    continue
                for j, code in enumerate(codes):
                    if code not in codes_by_key[key]:
                        self.problem(f"{here}[{j}]", f"no category with code {code!r} in dimension {key!r}")
                conditions[key] = [c for c in codes if isinstance(c, str)]
            for dimension in record.dimensions:
                if dimension.key == own_key:
                    dimension.applies_when = conditions


def _all_codes(categories: list[CategoryRecord]) -> set[str]:
    codes: set[str] = set()
    for category in categories:
        codes.add(category.code)
        codes |= _all_codes(category.children)
    return codes


def _any_selectable(categories: list[CategoryRecord]) -> bool:
    return any(c.selectable or _any_selectable(c.children) for c in categories)


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return {dict: "an object", list: "a list", str: "a string", int: "a number", float: "a number"}.get(
        type(value), type(value).__name__
    )
