"""`make run`'s demo: taxonomies, four accounts, thirty issues and a pilot study, idempotent."""

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.test import override_settings

from annotator.models import Assignment, ComponentRule, Issue, Study
from taxonomy.models import Taxonomy

pytestmark = pytest.mark.django_db


def demo_counts() -> tuple[int, int, int, int]:
    return Issue.objects.count(), Study.objects.count(), Assignment.objects.count(), Taxonomy.objects.count()


@override_settings(DEBUG=True)
def test_seed_demo_builds_the_demo_once_and_a_second_run_changes_nothing(capsys):
    call_command("seed_demo")
    out = capsys.readouterr().out
    assert "rater_a" in out and "owner-demo-pass" in out
    counts = demo_counts()
    assert counts[0] == 30
    assert counts[1] == 1
    assert counts[2] == 20  # ten pilot issues, two raters each
    assert set(Taxonomy.objects.values_list("slug", flat=True)) >= {"gu-tosem23", "ddl-2025"}
    assert get_user_model().objects.get(username="owner").check_password("owner-demo-pass")
    rules = ComponentRule.objects.filter(repository__owner="deepspeedai", repository__name="DeepSpeed")
    assert rules.filter(pattern="deepspeed/runtime/zero/stage3.py", component="ZeRO-3").exists()
    rule_count = ComponentRule.objects.count()

    call_command("seed_demo")
    assert ComponentRule.objects.count() == rule_count
    assert (
        Issue.objects.count(),
        Study.objects.count(),
        Assignment.objects.count(),
        Taxonomy.objects.count(),
    ) == counts


@override_settings(DEBUG=False)
def test_seed_demo_refuses_to_create_known_passwords_outside_debug():
    with pytest.raises(CommandError, match="DEBUG"):
        call_command("seed_demo")
    assert not get_user_model().objects.filter(username="owner").exists()
