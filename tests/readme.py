"""The README's tables, read by tests that check the README says what the product does."""

import re
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"
BACKTICKED = re.compile(r"`([^`]+)`")


def readme_table(section: str) -> list[tuple[str, ...]]:
    """The body rows of the first table under the README's `## <section>` heading, as tuples of cell text."""
    lines = README.read_text(encoding="utf-8").splitlines()
    start = lines.index(f"## {section}")
    rows: list[tuple[str, ...]] = []
    for line in lines[start + 1 :]:
        if line.startswith("## "):
            break
        if line.startswith("|"):
            rows.append(tuple(cell.strip() for cell in line.strip().strip("|").split(" | ")))
        elif rows:
            break
    assert len(rows) > 2, f"no table under '## {section}' in the README"
    return rows[2:]  # after the header and its --- line


def readme_labelling_keys() -> set[str]:
    """Every key the README's "Labelling" table names, `1`–`9` spelled out, plus "letters" when typing is listed."""
    keys: set[str] = set()
    for cells in readme_table("Labelling"):
        named = BACKTICKED.findall(cells[0])
        if "–" in cells[0] and len(named) == 2:
            keys.update(str(n) for n in range(int(named[0]), int(named[1]) + 1))
        else:
            keys.update(named or [cells[0]])
    return keys
