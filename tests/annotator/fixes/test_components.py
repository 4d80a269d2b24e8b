"""Path patterns → components: glob semantics, first match wins, hostile patterns refused."""

import time

import pytest

from annotator.fixes.components import ComponentMatcher, PatternError, component_clean, pattern_clean

RULES = [
    ("deepspeed/runtime/zero/stage3.py", "ZeRO-3"),
    ("deepspeed/runtime/zero", "ZeRO"),
    ("deepspeed/runtime/pipe/**", "Pipeline parallelism"),
    ("**/*.cu", "CUDA kernels"),
    ("tests/unit/*_test.py", "Unit tests"),
    ("op_builder/[ab]*.py", "Op builders a-b"),
]


@pytest.mark.parametrize(
    ("path", "component"),
    [
        ("deepspeed/runtime/zero/stage3.py", "ZeRO-3"),  # the earlier, narrower rule wins
        ("deepspeed/runtime/zero/stage_1_and_2.py", "ZeRO"),  # a folder covers what is beneath it
        ("deepspeed/runtime/zero", "ZeRO"),
        ("deepspeed/runtime/zerox.py", None),  # a folder name is not a prefix of a file name
        ("deepspeed/runtime/pipe/engine.py", "Pipeline parallelism"),
        ("deepspeed/runtime/pipe/a/b/c.py", "Pipeline parallelism"),
        ("csrc/adam/kernels/a.cu", "CUDA kernels"),
        ("a.cu", "CUDA kernels"),  # **/ also matches no folder
        ("tests/unit/zero_test.py", "Unit tests"),
        ("tests/unit/sub/zero_test.py", None),  # * stays within one folder
        ("op_builder/async_io.py", "Op builders a-b"),
        ("op_builder/cpu_adam.py", None),
        ("Deepspeed/runtime/zero/stage3.py", None),  # case-sensitive, as git paths are
        ("README.md", None),
    ],
)
def test_component_of(path, component):
    assert ComponentMatcher(RULES).component_of(path) == component


def test_components_of_sorted_once_and_unmapped():
    matcher = ComponentMatcher(RULES)
    paths = ["deepspeed/runtime/zero/stage3.py", "csrc/x.cu", "csrc/y.cu", "setup.py", "docs/index.md"]
    assert matcher.components_of(paths) == ("CUDA kernels", "ZeRO-3")
    assert matcher.unmapped(paths) == ["setup.py", "docs/index.md"]


def test_no_rules_maps_nothing():
    assert ComponentMatcher([]).components_of(["a.py"]) == ()


def test_regex_metacharacters_are_literal():
    matcher = ComponentMatcher([("src/(a|b)+.py", "Literal")])
    assert matcher.component_of("src/(a|b)+.py") == "Literal"
    assert matcher.component_of("src/aa.py") is None


def test_pattern_clean_normalises():
    assert pattern_clean("  ./deepspeed/runtime/**  ") == "deepspeed/runtime/**"
    assert pattern_clean("/megatron/core") == "megatron/core"
    assert component_clean("  ZeRO   stage 3 ") == "ZeRO stage 3"


@pytest.mark.parametrize(
    "pattern",
    ["", "   ", "../etc/passwd", "a/../b", "a\\b", "src/[abc", "a\x00b", "a\nb", "x" * 501, None, 5],
)
def test_hostile_patterns_refused(pattern):
    with pytest.raises(PatternError):
        pattern_clean(pattern)


@pytest.mark.parametrize("component", ["", "   ", "x" * 201, None])
def test_hostile_component_names_refused(component):
    with pytest.raises(PatternError):
        component_clean(component)


@pytest.mark.parametrize(
    ("pattern", "path"),
    [
        ("*a*a*a*b", "a" * 1000),  # minutes with a backtracking engine
        ("**/a/**/a/**/c", "a/" * 495),
        ("**/**/**/**/**/z", "/".join(["b"] * 490) + "/y"),
    ],
)
def test_adversarial_patterns_match_in_linear_time(pattern, path):
    matcher = ComponentMatcher([(pattern_clean(pattern), "Z"), ("a/**", "A")])
    started = time.perf_counter()
    matcher.component_of(path)
    assert time.perf_counter() - started < 0.1


def test_many_rules_first_one_wins():
    rules = [(f"pkg{i}/**", f"C{i}") for i in range(300)] + [("pkg7/special.py", "Never"), ("**", "Everything")]
    matcher = ComponentMatcher(rules)
    assert matcher.component_of("pkg7/special.py") == "C7"
    assert matcher.component_of("pkg299/a/b.py") == "C299"
    assert matcher.component_of("other.py") == "Everything"
