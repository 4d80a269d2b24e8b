"""Writing component rules: every pattern checked, the order kept, the shipped starting file loadable."""

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from annotator.models import ComponentRule, Repository
from annotator.selectors.fixes import component_matchers
from annotator.services.components import (
    STARTING_RULES,
    component_rule_add,
    component_rule_move,
    component_rule_remove,
    component_rules_read_file,
    component_rules_replace,
)
from core.errors import DomainError, NotFoundError
from tests.annotator.components.conftest import rules_of

pytestmark = pytest.mark.django_db


def test_replace_keeps_the_order_given(deepspeed):
    component_rules_replace(
        repository=deepspeed,
        rules=[{"pattern": " ./deepspeed/moe/** ", "component": "Mixture  of Experts"}, ("csrc/**", "Kernels")],
    )

    assert rules_of(deepspeed) == [("deepspeed/moe/**", "Mixture of Experts"), ("csrc/**", "Kernels")]


@pytest.mark.parametrize(
    "rule",
    [
        {"pattern": "", "component": "X"},
        {"pattern": "deepspeed/**", "component": "  "},
        {"pattern": "../etc/passwd", "component": "X"},
        {"pattern": "deepspeed\\runtime", "component": "X"},
        {"pattern": "deepspeed/[abc", "component": "X"},
        {"pattern": "a\x00b", "component": "X"},
        {"pattern": "x" * 501, "component": "X"},
        {"pattern": "deepspeed/**", "component": "y" * 201},
        {"pattern": "deepspeed/**"},
        "deepspeed/**",
    ],
)
def test_a_bad_rule_is_refused_and_nothing_changes(deepspeed, rule):
    before = rules_of(deepspeed)

    with pytest.raises(DomainError, match="Rule 2"):
        component_rules_replace(repository=deepspeed, rules=[("tests/**", "Tests"), rule])

    assert rules_of(deepspeed) == before


def test_the_same_pattern_twice_is_refused(deepspeed):
    with pytest.raises(DomainError, match="already listed"):
        component_rules_replace(repository=deepspeed, rules=[("tests/**", "Tests"), ("./tests/**", "More tests")])
    with pytest.raises(DomainError, match="already listed"):
        component_rule_add(repository=deepspeed, pattern="deepspeed/runtime/pipe/**", component="Pipes")


def test_add_appends_remove_deletes_and_move_swaps(deepspeed):
    added = component_rule_add(repository=deepspeed, pattern="deepspeed/comm/**", component="Communication")
    assert rules_of(deepspeed)[-1] == ("deepspeed/comm/**", "Communication")

    component_rule_move(repository=deepspeed, rule_id=added.pk, offset=-1)
    assert [p for p, _ in rules_of(deepspeed)][2:] == ["deepspeed/comm/**", "deepspeed/runtime/pipe/**"]
    first = ComponentRule.objects.get(repository=deepspeed, pattern="deepspeed/runtime/zero/stage3.py")
    component_rule_move(repository=deepspeed, rule_id=first.pk, offset=-1)  # already first: stays
    assert rules_of(deepspeed)[0][0] == "deepspeed/runtime/zero/stage3.py"

    component_rule_remove(repository=deepspeed, rule_id=added.pk)
    assert "deepspeed/comm/**" not in [p for p, _ in rules_of(deepspeed)]


def test_a_rule_of_another_repository_cannot_be_moved_or_removed(deepspeed):
    other, _ = Repository.objects.get_or_create(host="github.com", owner="NVIDIA", name="Megatron-LM")
    foreign = ComponentRule.objects.create(repository=other, pattern="megatron/**", component="Megatron")

    with pytest.raises(NotFoundError):
        component_rule_remove(repository=deepspeed, rule_id=foreign.pk)
    with pytest.raises(NotFoundError):
        component_rule_move(repository=deepspeed, rule_id=foreign.pk, offset=1)
    assert ComponentRule.objects.filter(pk=foreign.pk).exists()


def test_the_first_rule_that_covers_a_path_names_its_component(deepspeed):
    matcher = component_matchers([deepspeed.pk])[deepspeed.pk]

    assert matcher.component_of("deepspeed/runtime/zero/stage3.py") == "ZeRO-3"
    assert matcher.component_of("deepspeed/runtime/zero/stage_1_and_2.py") == "ZeRO"
    assert matcher.component_of("deepspeed/runtime/pipe/engine.py") == "Pipeline parallelism"
    assert matcher.component_of("README.md") is None


def test_the_starting_file_maps_the_three_frameworks_folders():
    rules = component_rules_read_file(STARTING_RULES)

    assert set(rules) == {"deepspeedai/DeepSpeed", "NVIDIA/Megatron-LM", "hpcaitech/ColossalAI"}
    from annotator.fixes.components import ComponentMatcher

    expected = {
        "deepspeedai/DeepSpeed": {
            "deepspeed/runtime/zero/stage3.py": "ZeRO-3",
            "deepspeed/runtime/zero/stage_1_and_2.py": "ZeRO-1/2",
            "deepspeed/runtime/pipe/engine.py": "Pipeline parallelism",
            "csrc/adam/cpu_adam.cpp": "Ops and kernels",
        },
        "NVIDIA/Megatron-LM": {
            "megatron/core/tensor_parallel/layers.py": "Tensor parallelism",
            "megatron/core/transformer/moe/router.py": "Mixture of Experts",
            "megatron/core/transformer/attention.py": "Transformer",
        },
        "hpcaitech/ColossalAI": {
            "colossalai/booster/plugin/gemini_plugin.py": "Booster",
            "colossalai/zero/gemini/gemini_ddp.py": "Gemini",
            "colossalai/shardformer/policies/llama.py": "Shardformer",
        },
    }
    for full_name, paths in expected.items():
        matcher = ComponentMatcher(rules[full_name])
        assert {path: matcher.component_of(path) for path in paths} == paths, full_name


def test_load_components_gives_the_three_frameworks_their_rules_and_keeps_edited_ones(deepspeed):
    out = StringIO()
    call_command("load_components", stdout=out)

    assert "deepspeedai/DeepSpeed: kept its own rules" in out.getvalue()
    assert len(rules_of(deepspeed)) == 3
    megatron = Repository.objects.get(owner="NVIDIA", name="Megatron-LM")
    assert ("megatron/core/tensor_parallel/**", "Tensor parallelism") in rules_of(megatron)

    call_command("load_components", "--replace", stdout=StringIO())
    assert ("deepspeed/runtime/pipe/**", "Pipeline parallelism") in rules_of(deepspeed)
    assert len(rules_of(deepspeed)) > 20


def test_load_components_refuses_a_file_with_a_bad_rule_and_writes_nothing(tmp_path, db):
    bad = tmp_path / "rules.json"
    bad.write_text(json.dumps({"repositories": {"a/b": {"rules": [{"pattern": "../x", "component": "X"}]}}}))

    with pytest.raises(CommandError, match="a/b: Rule 1"):
        call_command("load_components", str(bad), stdout=StringIO())
    assert not Repository.objects.filter(owner="a", name="b").exists()
