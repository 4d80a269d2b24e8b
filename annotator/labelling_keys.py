"""The labelling page's keys, defined once.

The page's help (press `?`) shows this table, the README's "Labelling" section repeats it row for row (a test
compares them), and static/js/labelling.js does what it says. Keys are written in backticks.
"""

LABELLING_KEYS: tuple[tuple[str, str], ...] = (
    (
        "`1`–`9`",
        "choose the numbered category of the current dimension; where several are allowed, add or remove it",
    ),
    ("`0`", "clear the current dimension"),
    (
        "letters",
        "filter the current dimension's categories: names and aliases match first, then definitions; "
        "the first match is highlighted",
    ),
    ("`↓` / `↑`", "move the highlight"),
    (
        "`Enter`",
        "choose the highlighted category and go to the next dimension; where several are allowed, add or "
        "remove it and stay (`Enter` with nothing typed goes on); when nothing matches, stay and say so",
    ),
    ("`Tab` / `Shift+Tab`", "next / previous dimension; after the last one, the note"),
    ("`Esc`", "clear the filter; with nothing typed, leave it (then `P`, `J` and `K` work)"),
    (
        "`P`",
        "propose a new category for the current dimension: `Enter` keeps it and goes to the next dimension, "
        "`Esc` goes back",
    ),
    ("`Ctrl+Enter`", "submit, from anywhere on the page"),
    ("`J` / `K`", "next / previous issue (the draft is saved first)"),
    ("`/`", "back to the current dimension's filter"),
    ("`?`", "these keys and the study's guidelines"),
)
