"""Build the gu-tosem23 taxonomy template from the study's published spreadsheet.

    python taxonomy/data/build_gu_tosem23.py final_categories.xlsx [rater spreadsheets ...] [--output FILE]

The first file is the final labelled dataset (sheets `faults` and `how-to questions`); it
decides the categories and the counts in their provenance. Further files (the pilot and
reliability-round spreadsheets of the same study) only contribute spellings: every
hand-typed variant that means an existing category is recorded as one of its aliases, so
spreadsheet imports can map it. The output is deterministic, so re-running the script on
the same inputs reproduces the committed JSON byte for byte. Needs only openpyxl.
"""

import argparse
import json
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

import openpyxl

SOURCE = "Gu et al. TOSEM 2023, final_categories.xlsx"
PLACEHOLDERS = {"", "pending", "pening", "pedning", "none"}
# Misspelt words seen in the spreadsheets -> the intended word.
TYPOS = {
    "assignemnt": "assignment",
    "behaviour": "behavior",
    "behvior": "behavior",
    "configuartion": "configuration",
    "coonfiguration": "configuration",
    "dpendency": "dependency",
    "eficiency": "efficiency",
    "environmrnt": "environment",
    "fx": "fix",
    "installatiovn": "installation",
    "intialization": "initialization",
    "netowrk": "network",
    "nonfunctioning": "unfunctioning",
    "synchroniztion": "synchronization",
    "tensosr": "tensor",
    "usgae": "usage",
    "verion": "version",
    # Plurals typed for the singular category.
    "failures": "failure",
    "results": "result",
    "versions": "version",
}
# Judgement calls: different wordings of one category (normalised key -> normalised key).
MERGES = {
    "fix batch size": "fix batch size/data partition",
    "fix data partition/batch size": "fix batch size/data partition",
    "framework version": "fix framework version",
    "fix model structure": "fix model construction",
    "change model structure": "fix model construction",
    "installation/build failure": "installation and build failure",
}
# Cells that name two categories at once (normalised key -> the categories' keys).
COMPOUNDS = {
    "unexpected parallelization and device": ["unexpected parallelization", "unexpected device"],
    "fix dependency installatiovn/version": ["fix dependency installation", "fix dependency version"],
    "fix dependency installatiovna/vre4rsion": ["fix dependency installation", "fix dependency version"],
    "fix batch size/data partition/learning rate": ["fix batch size/data partition", "fix learning rate"],
}
# Fix-pattern cells list several fixes joined by " & " or " / " (with spaces around).
FIX_SEPARATOR = re.compile(r"\s+(?:&|/)\s+")
STAGE_ORDER = [
    "package build and import",
    "communication setup",
    "data and model preparation",
    "training and evaluation",
]

STAGE_DEFINITIONS = {
    "package build and import": "Building, installing or importing the framework and its dependencies.",
    "communication setup": "Setting up the processes, devices and communication between them before training runs.",
    "data and model preparation": "Loading, partitioning and placing the data and building or loading the model.",
    "training and evaluation": "Running distributed training, evaluation or inference.",
}
INNER_DEFINITIONS = {
    "program failure": "The program stops with an error.",
    "unexpected performance": "The program runs but behaves or performs other than expected.",
}


def norm(text: str) -> str:
    """The key under which spellings of one category meet: case, '&', spacing and typos ignored."""
    words = text.lower().replace("&", " and ").split()
    key = " ".join(TYPOS.get(word, word) for word in words)
    key = MERGES.get(key, key)
    return key


def clean(text: str) -> str:
    words = text.split()
    return " ".join(TYPOS.get(word.lower(), word) if word.lower() in TYPOS else word for word in words)


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", norm(text)).strip("-")


def is_placeholder(value) -> bool:
    return value is None or str(value).strip().lower() in PLACEHOLDERS


def split_cell(value: str, *, fix_pattern: bool = False) -> list[tuple[str | None, str]]:
    """(raw spelling, key) for each category named in a cell; no spelling for a part of a compound.

    A compound cell is not an alias: it names two categories, so an import must not map it to one.
    """
    raw = str(value).strip()
    parts = FIX_SEPARATOR.split(raw) if fix_pattern else [raw]
    result = []
    for part in parts:
        key = norm(part)
        if key in COMPOUNDS:
            result.extend((None, k) for k in COMPOUNDS[key])
        else:
            result.append((part, key))
    return result


class Spellings:
    """Every raw spelling seen per (dimension, key), and which ones the final data used."""

    def __init__(self) -> None:
        self.seen: dict[tuple[str, str], Counter] = defaultdict(Counter)

    def add(self, dimension: str, raw: str | None, key: str, weight: int = 1) -> None:
        if raw is not None:
            self.seen[(dimension, key)][raw] += weight

    def name(self, dimension: str, key: str) -> str:
        counts = Counter()
        for raw, n in self.seen[(dimension, key)].items():
            counts[clean(raw)] += n
        if not counts:
            return key
        # Most used spelling; ties go to the lower-case one, then alphabetical.
        return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0] != kv[0].lower(), kv[0]))[0][0]

    def aliases(self, dimension: str, key: str, name: str) -> list[str]:
        variants = {raw for raw in self.seen[(dimension, key)] if raw != name}
        variants |= {raw.strip() for raw in variants if raw.strip() != name}
        return sorted(variants)


def read_sheet(workbook, title: str) -> list[dict]:
    rows = workbook[title].iter_rows(values_only=True)
    header = [str(h).strip().lower() if h is not None else "" for h in next(rows)]
    return [dict(zip(header, row, strict=False)) for row in rows if any(v is not None for v in row)]


def provenance(sheet: str, issues: int, distributed: int | None = None) -> str:
    detail = f"{sheet} sheet, {issues} issue{'s' if issues != 1 else ''}"
    if distributed is not None:
        detail += f"; {distributed} distributed-specific"
    return f"{SOURCE} ({detail})"


def ds_flag(total: int, distributed: int) -> bool | None:
    """True when every issue of the category was distributed-specific, False when none, else unknown."""
    if total and distributed == total:
        return True
    if distributed == 0:
        return False
    return None


def build(final_path: Path, extra_paths: list[Path]) -> dict:
    spellings = Spellings()
    workbook = openpyxl.load_workbook(final_path, read_only=True, data_only=True)
    faults = read_sheet(workbook, "faults")
    howtos = read_sheet(workbook, "how-to questions")

    stage_stats: dict[str, list] = defaultdict(lambda: [0, 0, []])
    # symptom tree: (stage, inner or None, leaf) -> [issues, distributed, links]
    leaf_stats: dict[tuple, list] = defaultdict(lambda: [0, 0, []])
    fix_stats: dict[str, list] = defaultdict(lambda: [0, 0, []])
    for row in faults:
        ds = int(row["distributed-specific"] or 0)
        link = row["link"]
        stage_key = norm(row["stage"])
        spellings.add("stage", row["stage"], stage_key)
        _count(stage_stats[stage_key], ds, link)
        inner_key = None
        if not is_placeholder(row["inner-category"]):
            inner_key = norm(row["inner-category"])
            spellings.add("symptom", row["inner-category"], inner_key)
        for raw, leaf_key in split_cell(row["leaf category"]):
            spellings.add("symptom", raw, leaf_key)
            _count(leaf_stats[(stage_key, inner_key, leaf_key)], ds, link)
        for raw, fix_key in split_cell(row["fix pattern"], fix_pattern=True):
            spellings.add("fix_pattern", raw, fix_key)
            _count(fix_stats[fix_key], ds, link)
    howto_stats: dict[tuple, list] = defaultdict(lambda: [0, 0, []])
    for row in howtos:
        topic_key = norm(row["how-to topic"])
        spellings.add("howto_topic", row["how-to topic"], topic_key)
        sub_key = None
        if not is_placeholder(row["sub-topic"]):
            sub_key = norm(row["sub-topic"])
            spellings.add("howto_topic", row["sub-topic"], sub_key)
        _count(howto_stats[(topic_key, sub_key)], 0, row["link"])
    for stage_key in stage_stats:
        for raw, n in spellings.seen[("stage", stage_key)].items():
            spellings.add("symptom", raw, stage_key, n)

    known = {
        "stage": set(stage_stats),
        "symptom": set(stage_stats) | {k for key in leaf_stats for k in key[1:] if k},
        "fix_pattern": set(fix_stats),
        "howto_topic": {k for key in howto_stats for k in key if k},
    }
    for path in extra_paths:
        _harvest_spellings(path, spellings, known)

    return {
        "schema_version": 1,
        "slug": "gu-tosem23",
        "name": "Distributed training issues (Liu, Gu et al., TOSEM 2023)",
        "description": (
            "The taxonomy of faults and how-to questions in distributed deep learning training from Liu, Gu "
            f"et al. (TOSEM 2023): {len(faults)} faults and {len(howtos)} how-to questions from GitHub issues and "
            "Stack Overflow posts about Horovod, TensorFlow, PyTorch and Keras. Faults are classified by stage, "
            "symptom (stage > inner category > leaf; stages other than training and evaluation have no inner "
            "category), fix pattern and whether they are distributed-specific; how-to questions by topic and "
            "sub-topic. Derived from the study's final_categories.xlsx: hand-typed variants of a label were merged "
            "into one category and kept as its aliases; each category's provenance gives its number of issues."
        ),
        "citation": (
            'Liu, Gu, Chen, Wen, Zhang, Ma, Wang, Jin. "Rise of Distributed Deep Learning Training in the Big '
            'Model Era: From a Software Engineering Perspective". ACM Transactions on Software Engineering and '
            "Methodology (TOSEM), 2023. arXiv:2112.06222."
        ),
        "license": "Apache-2.0",
        "attribution": (
            "Categories derived from the study's replication data (final_categories.xlsx and the rater "
            "spreadsheets) in the repository gudiandian/TOSEM23-DistributedTraining, published under the "
            "Apache License 2.0. Spellings merged and arranged as a template by the Taxonomist project."
        ),
        "changelog": "Derived from final_categories.xlsx.",
        "dimensions": [
            _issue_type(len(faults), len(howtos)),
            _distributed_specific(faults),
            _stage_dimension(stage_stats, spellings),
            _symptom_dimension(stage_stats, leaf_stats, spellings),
            _fix_dimension(fix_stats, spellings),
            _howto_dimension(howto_stats, spellings),
        ],
    }


def _count(stats: list, ds: int, link: str) -> None:
    stats[0] += 1
    stats[1] += ds
    if link and len(stats[2]) < 3:
        stats[2].append(link)


def _harvest_spellings(path: Path, spellings: Spellings, known: dict[str, set]) -> None:
    """Record the variants in a rater spreadsheet that mean a known category (others are ignored)."""
    columns = {
        "stage": ["stage"],
        "symptom": ["stage", "type", "inner symptom", "leaf category"],
        "fix_pattern": ["fix pattern"],
        "howto_topic": ["how-to topic", "how-to sub-topic", "sub-topic"],
    }
    workbook = openpyxl.load_workbook(path, read_only=True, data_only=True)
    for sheet in workbook.worksheets:
        rows = sheet.iter_rows(values_only=True)
        header = [str(h).strip().lower().removesuffix(" final") if h is not None else "" for h in next(rows)]
        for row in rows:
            cells = dict(zip(header, row, strict=False))
            for dimension, names in columns.items():
                for column in names:
                    value = cells.get(column)
                    if is_placeholder(value) or not isinstance(value, str):
                        continue
                    for raw, key in split_cell(value, fix_pattern=dimension == "fix_pattern"):
                        if key in known[dimension]:
                            spellings.add(dimension, raw, key, 0)


def _category(code: str, name: str, **fields) -> dict:
    """A template category; empty fields are left out (False and 0 are kept)."""
    item = {"code": code, "name": name}
    item.update({key: value for key, value in fields.items() if value not in (None, "", [])})
    return item


def _issue_type(faults: int, howtos: int) -> dict:
    return {
        "key": "issue_type",
        "name": "Issue type",
        "help_text": "Is the issue a fault (something went wrong) or a how-to question (asking how to do something)?",
        "categories": [
            _category(
                "fault",
                "fault",
                definition="Something went wrong: an error, a crash, a hang, wrong results or poor performance.",
                provenance=provenance("faults", faults),
            ),
            _category(
                "how-to",
                "how-to question",
                definition="A question about how to do something, with nothing going wrong yet.",
                provenance=provenance("how-to questions", howtos),
            ),
        ],
    }


def _distributed_specific(faults: list[dict]) -> dict:
    yes = sum(1 for row in faults if int(row["distributed-specific"] or 0) == 1)
    return {
        "key": "distributed_specific",
        "name": "Distributed-specific",
        "help_text": "Does the fault occur only in distributed training, not when training on a single device?",
        "applies_when": {"issue_type": ["fault"]},
        "categories": [
            _category(
                "yes",
                "distributed-specific",
                definition="The fault occurs only in distributed training (1 in the spreadsheet).",
                provenance=provenance("faults", yes),
                distributed_specific=True,
            ),
            _category(
                "no",
                "not distributed-specific",
                definition="The fault would also occur on a single device (0 in the spreadsheet).",
                provenance=provenance("faults", len(faults) - yes),
                distributed_specific=False,
            ),
        ],
    }


def _ordered_stages(stage_stats: dict) -> list[str]:
    return sorted(stage_stats, key=lambda k: (STAGE_ORDER.index(k) if k in STAGE_ORDER else 99, k))


def _stage_dimension(stage_stats: dict, spellings: Spellings) -> dict:
    categories = []
    for key in _ordered_stages(stage_stats):
        issues, ds, links = stage_stats[key]
        name = spellings.name("stage", key)
        categories.append(
            _category(
                slug(key),
                name,
                definition=STAGE_DEFINITIONS.get(key, ""),
                examples=links,
                provenance=provenance("faults", issues, ds),
                distributed_specific=ds_flag(issues, ds),
                aliases=spellings.aliases("stage", key, name),
            )
        )
    return {
        "key": "stage",
        "name": "Stage",
        "help_text": "The stage of distributed training in which the fault shows itself.",
        "applies_when": {"issue_type": ["fault"]},
        "categories": categories,
    }


def _by_count(stats: dict, keys) -> list:
    """Most frequent first; 'others' always last; ties alphabetical."""
    return sorted(
        keys, key=lambda k: (norm(str(k[-1] if isinstance(k, tuple) else k)) == "others", -stats[k][0], str(k))
    )


def _symptom_dimension(stage_stats: dict, leaf_stats: dict, spellings: Spellings) -> dict:
    def node(code: str, key: str, issues: int, ds: int, links: list, **extra) -> dict:
        name = spellings.name("symptom", key)
        return _category(
            code,
            name,
            examples=links if "children" not in extra else [],
            provenance=provenance("faults", issues, ds),
            distributed_specific=ds_flag(issues, ds),
            aliases=spellings.aliases("symptom", key, name),
            **extra,
        )

    stages = []
    for stage_key in _ordered_stages(stage_stats):
        stage_code = slug(stage_key)
        leaves = [k for k in leaf_stats if k[0] == stage_key]
        inner_keys = sorted({k[1] for k in leaves if k[1]}, key=lambda i: (-_sum(leaf_stats, stage_key, i)[0], i))
        children = []
        for inner_key in inner_keys:
            inner_code = f"{stage_code}.{slug(inner_key)}"
            inner_leaves = [k for k in leaves if k[1] == inner_key]
            grandchildren = [
                node(f"{inner_code}.{slug(k[2])}", k[2], *leaf_stats[k]) for k in _by_count(leaf_stats, inner_leaves)
            ]
            issues, ds = _sum(leaf_stats, stage_key, inner_key)
            children.append(
                node(
                    inner_code,
                    inner_key,
                    issues,
                    ds,
                    [],
                    definition=INNER_DEFINITIONS.get(inner_key, ""),
                    children=grandchildren,
                )
            )
        direct = [k for k in leaves if k[1] is None]
        children += [node(f"{stage_code}.{slug(k[2])}", k[2], *leaf_stats[k]) for k in _by_count(leaf_stats, direct)]
        issues, ds, _ = stage_stats[stage_key]
        stages.append(
            node(
                stage_code,
                stage_key,
                issues,
                ds,
                [],
                definition=STAGE_DEFINITIONS.get(stage_key, ""),
                children=children,
            )
        )
    return {
        "key": "symptom",
        "name": "Symptom",
        "help_text": (
            "How the fault shows itself. Pick the leaf; the tree groups symptoms by stage and, in training and "
            "evaluation, by whether the program fails or misbehaves."
        ),
        "level_names": ["stage", "inner category", "leaf category"],
        "applies_when": {"issue_type": ["fault"]},
        "categories": stages,
    }


def _sum(leaf_stats: dict, stage_key: str, inner_key: str) -> tuple[int, int]:
    rows = [v for k, v in leaf_stats.items() if k[0] == stage_key and k[1] == inner_key]
    return sum(v[0] for v in rows), sum(v[1] for v in rows)


def _fix_dimension(fix_stats: dict, spellings: Spellings) -> dict:
    categories = []
    for key in _by_count(fix_stats, list(fix_stats)):
        issues, ds, links = fix_stats[key]
        name = spellings.name("fix_pattern", key)
        categories.append(
            _category(
                slug(key),
                name,
                examples=links,
                provenance=provenance("faults", issues, ds),
                distributed_specific=ds_flag(issues, ds),
                aliases=spellings.aliases("fix_pattern", key, name),
            )
        )
    return {
        "key": "fix_pattern",
        "name": "Fix pattern",
        "help_text": "How the fault was fixed. Several may apply (the spreadsheet joins them with '&' or '/').",
        "multi_valued": True,
        "applies_when": {"issue_type": ["fault"]},
        "categories": categories,
    }


def _howto_dimension(howto_stats: dict, spellings: Spellings) -> dict:
    topics: dict[str, list] = defaultdict(list)
    for topic, sub in howto_stats:
        topics[topic].append(sub)
    totals = {t: sum(howto_stats[(t, s)][0] for s in subs) for t, subs in topics.items()}
    categories = []
    for topic in sorted(topics, key=lambda t: (-totals[t], t)):
        subs = [s for s in topics[topic] if s]
        children = []
        for sub in sorted(subs, key=lambda s: (-howto_stats[(topic, s)][0], s)):
            issues, _, links = howto_stats[(topic, sub)]
            name = spellings.name("howto_topic", sub)
            children.append(
                _category(
                    f"{slug(topic)}.{slug(sub)}",
                    name,
                    examples=links,
                    provenance=provenance("how-to questions", issues),
                    aliases=spellings.aliases("howto_topic", sub, name),
                )
            )
        direct = howto_stats.get((topic, None))
        name = spellings.name("howto_topic", topic)
        categories.append(
            _category(
                slug(topic),
                name,
                examples=direct[2] if direct else [],
                provenance=provenance("how-to questions", totals[topic]),
                aliases=spellings.aliases("howto_topic", topic, name),
                # A topic that questions were labelled with directly is a label in its own right.
                selectable=bool(direct) or not children,
                children=children,
            )
        )
    return {
        "key": "howto_topic",
        "name": "How-to topic",
        "help_text": "What the how-to question is about: a topic and, where one fits, a sub-topic.",
        "level_names": ["topic", "sub-topic"],
        "applies_when": {"issue_type": ["how-to"]},
        "categories": categories,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("final", type=Path, help="final_categories.xlsx")
    parser.add_argument("extra", type=Path, nargs="*", help="rater spreadsheets whose spellings become aliases")
    parser.add_argument("--output", default=str(Path(__file__).with_name("gu-tosem23.json")), help="'-' for stdout")
    args = parser.parse_args(argv)
    text = json.dumps(build(args.final, args.extra), indent=2, ensure_ascii=False) + "\n"
    if args.output == "-":
        sys.stdout.write(text)
    else:
        Path(args.output).write_text(text, encoding="utf-8")
        print(f"wrote {args.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
