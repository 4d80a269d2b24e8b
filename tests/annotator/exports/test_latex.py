"""LaTeX tables: booktabs structure, escaping, alignment, number formats and group rows."""

import os
import re
import shutil
import subprocess

import pytest

from annotator.exports.latex import Percent, booktabs_table, format_cell, latex_escape


@pytest.mark.parametrize(
    ("char", "escaped"),
    [
        ("&", r"\&"),
        ("%", r"\%"),
        ("$", r"\$"),
        ("#", r"\#"),
        ("_", r"\_"),
        ("{", r"\{"),
        ("}", r"\}"),
        ("~", r"\textasciitilde{}"),
        ("^", r"\textasciicircum{}"),
        ("\\", r"\textbackslash{}"),
        ("<", r"\textless{}"),
        (">", r"\textgreater{}"),
        ("|", r"\textbar{}"),
    ],
)
def test_every_special_character_is_escaped(char, escaped):
    assert latex_escape(f"a{char}b") == f"a{escaped}b"


def test_escaping_is_a_single_pass_so_nothing_is_escaped_twice():
    # A naive chain of replace() calls would turn the backslash's {} into \{\}.
    assert latex_escape("\\{}") == r"\textbackslash{}\{\}"
    assert latex_escape("100% C++ & CUDA_ext #1 ~$5^2") == (
        r"100\% C++ \& CUDA\_ext \#1 \textasciitilde{}\$5\textasciicircum{}2"
    )


def test_a_cell_stays_on_one_line():
    assert latex_escape("two\nlines\r\nhere") == "two lines  here"


def test_booktabs_structure_in_order():
    text = booktabs_table(["Symptom", "Issues"], [["crash", 12], ["hang", 3]])
    lines = text.splitlines()
    assert lines[0] == r"\begin{tabular}{@{}lr@{}}"
    assert lines[1] == r"\toprule"
    assert lines[2] == r"Symptom & Issues \\"
    assert lines[3] == r"\midrule"
    assert lines[4:6] == [r"crash & 12 \\", r"hang & 3 \\"]
    assert lines[6:] == [r"\bottomrule", r"\end{tabular}"]
    assert "table}" not in text  # no float without a caption or label


def test_hostile_cells_and_header_are_escaped():
    text = booktabs_table(["a_b & c"], [[r"\input{/etc/passwd}"], ["50% {x}"]])
    assert r"a\_b \& c \\" in text
    assert r"\textbackslash{}input\{/etc/passwd\} \\" in text
    assert r"\input{" not in text
    assert r"50\% \{x\} \\" in text


def test_caption_and_label_make_a_table_float():
    text = booktabs_table(["x"], [[1]], caption="Symptoms & causes (n=849)", label="tab:symptoms")
    lines = text.splitlines()
    assert lines[:4] == [
        r"\begin{table}[htbp]",
        r"\centering",
        r"\caption{Symptoms \& causes (n=849)}",
        r"\label{tab:symptoms}",
    ]
    assert lines[-1] == r"\end{table}"


def test_a_label_that_would_break_latex_is_refused():
    with pytest.raises(ValueError, match="may hold only letters"):
        booktabs_table(["x"], [[1]], label="tab:a}b")


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (12, "12"),
        (-3, "$-$3"),
        (0.81234, "0.81"),
        (-0.5, "$-$0.50"),
        (float("nan"), "--"),
        (Percent(45.1), r"45.1\%"),
        (Percent(95, digits=0), r"95\%"),
        (Percent(float("nan")), "--"),
        ("45.1%", r"45.1\%"),
        (None, ""),
        (True, "yes"),
    ],
)
def test_cell_formats(value, text):
    assert format_cell(value) == text


def test_float_digits_is_configurable():
    assert r"0.812 \\" in booktabs_table(["kappa"], [[0.81234]], float_digits=3)


def test_numeric_columns_are_right_aligned_and_text_columns_left():
    text = booktabs_table(
        ["name", "n", "share", "kappa", "mixed"],
        [["crash", 3, "45.1%", 0.8, "1"], ["hang", None, Percent(12.5), float("nan"), "many"]],
    )
    assert text.startswith(r"\begin{tabular}{@{}lrrrl@{}}")


def test_explicit_alignment_wins_and_is_checked():
    assert booktabs_table(["a", "b"], [[1, 2]], align="cp{3cm}").startswith(r"\begin{tabular}{@{}cp{3cm}@{}}")
    assert booktabs_table(["a", "b"], [[1, 2]], align=["c", "l"]).startswith(r"\begin{tabular}{@{}cl@{}}")
    with pytest.raises(ValueError, match="align gives 1 column"):
        booktabs_table(["a", "b"], [[1, 2]], align="l")
    with pytest.raises(ValueError, match="Unknown column alignment"):
        booktabs_table(["a"], [[1]], align="x")


def test_a_row_of_the_wrong_length_is_refused_with_its_number():
    with pytest.raises(ValueError, match="Row 2 has 1 cells but the header has 2"):
        booktabs_table(["a", "b"], [[1, 2], [3]])


def test_one_level_grouping_prints_bold_group_rows():
    rows = [
        ["training", "crash", 5],
        ["training", "hang", 2],
        ["init & setup", "timeout", 1],
    ]
    lines = booktabs_table(["Stage", "Symptom", "n"], rows, group_by=0).splitlines()
    assert lines[0] == r"\begin{tabular}{@{}lr@{}}"  # the grouping column left the table
    assert lines[2] == r"Symptom & n \\"
    assert lines[4:] == [
        r"\multicolumn{2}{@{}l}{\textbf{training}} \\",
        r"\quad crash & 5 \\",
        r"\quad hang & 2 \\",
        r"\addlinespace",
        r"\multicolumn{2}{@{}l}{\textbf{init \& setup}} \\",
        r"\quad timeout & 1 \\",
        r"\bottomrule",
        r"\end{tabular}",
    ]


def test_two_level_grouping_prints_a_group_row_only_where_a_level_changes():
    rows = [
        ["training", "error", "oom", 3],
        ["training", "error", "nccl", 2],
        ["training", "wrong", "nan loss", 1],
        ["checkpoint", "error", "save", 4],
    ]
    body = booktabs_table(["Stage", "Inner", "Leaf", "n"], rows, group_by=[0, 1]).splitlines()[4:-2]
    assert body == [
        r"\multicolumn{2}{@{}l}{\textbf{training}} \\",
        r"\multicolumn{2}{@{}l}{\quad \textit{error}} \\",
        r"\quad \quad oom & 3 \\",
        r"\quad \quad nccl & 2 \\",
        r"\multicolumn{2}{@{}l}{\quad \textit{wrong}} \\",
        r"\quad \quad nan loss & 1 \\",
        r"\addlinespace",
        r"\multicolumn{2}{@{}l}{\textbf{checkpoint}} \\",
        r"\multicolumn{2}{@{}l}{\quad \textit{error}} \\",
        r"\quad \quad save & 4 \\",
    ]


@pytest.mark.parametrize(
    ("group_by", "message"), [(5, "does not exist"), ([0, 0], "same column twice"), ([0, 1], "Every")]
)
def test_bad_grouping_is_refused(group_by, message):
    with pytest.raises(ValueError, match=message):
        booktabs_table(["a", "b"], [["x", 1]], group_by=group_by)


def test_rows_may_be_a_generator():
    assert r"2 \\" in booktabs_table(["n"], ([n] for n in range(3)))


def test_braces_balance_in_a_hostile_table():
    text = booktabs_table(["{", "}"], [["}}}", "{"], ["\\", "^~"]], caption="{oops", group_by=None)
    unescaped = re.sub(r"\\[{}]", "", text)
    assert unescaped.count("{") == unescaped.count("}")


def test_the_table_compiles(tmp_path):
    if shutil.which("pdflatex") is None:
        if os.environ.get("REQUIRE_LATEX"):
            pytest.fail("REQUIRE_LATEX is set but pdflatex is not installed (scripts/install-latex.sh)")
        pytest.skip("pdflatex is not installed: run `make latex` to install it")
    table = booktabs_table(
        ["Stage", "Symptom & cause", "n", "%"],
        [["training", "C++_ext #1 ~^\\ {x} <>|", -3, Percent(45.1)], ["init", "$5", float("nan"), 0.5]],
        caption="All 100% special: & $ # _ { } ~ ^ \\",
        label="tab:x",
        group_by=0,
    )
    source = "\\documentclass{article}\\usepackage{booktabs}\\begin{document}\n" + table + "\\end{document}\n"
    (tmp_path / "t.tex").write_text(source, encoding="utf-8")
    result = subprocess.run(
        ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "t.tex"], cwd=tmp_path, capture_output=True
    )
    assert result.returncode == 0, result.stdout.decode(errors="replace")[-2000:]
