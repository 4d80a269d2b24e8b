"""Set up the demo used by `make run`: taxonomies, demo accounts, demo issues (and a demo study).

Idempotent: a second run finds everything in place and returns at once.
"""

import json
import os
from io import StringIO
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError

from annotator.models import Issue
from annotator.services.issues import issues_mark_demo
from core.permissions import STUDY_OWNERS_GROUP

DEMO_ISSUES = Path(__file__).resolve().parents[2] / "demo" / "demo_issues.json"

DEMO_STUDY = "Demo: bugs in distributed training frameworks"
DEMO_GUIDELINES = """\
## How to label

1. Read the issue and its comments to the end: the fix is often named in the last comment.
2. **Stage**: where in distributed training the problem shows up.
3. **Symptom**: what the user observed, not what caused it.
4. **Root cause** and **fix pattern**: only if the thread makes them clear; otherwise propose a
   category with "none fits" or leave a note.
5. Feature requests and usage questions are *not bugs*: exclude them with a reason.
"""

# (username, password, role description); demo only — seed_demo refuses to run with DEBUG off.
DEMO_ACCOUNTS = [
    ("owner", "owner-demo-pass", "study owner (also site admin)"),
    ("rater_a", "rater-a-demo-pass", "rater"),
    ("rater_b", "rater-b-demo-pass", "rater"),
    ("adjudicator", "adjudicator-demo-pass", "adjudicator"),
]


class Command(BaseCommand):
    help = "Load the taxonomy templates, demo accounts and demo issues (for `make run`)."

    def add_arguments(self, parser):
        parser.add_argument("--force", action="store_true", help="Run even with DEBUG off (never in production).")

    def handle(self, *args, force: bool = False, **options):
        if not settings.DEBUG and not force:
            raise CommandError("seed_demo creates accounts with known passwords; it runs only with DEBUG=1.")
        call_command("load_taxonomy", "--all", verbosity=0)
        call_command("load_components", stdout=StringIO())  # keeps rules a repository already has
        users = self._accounts()
        if not Issue.objects.filter(url__in=self._demo_urls()).exists():
            call_command("import_issues", str(DEMO_ISSUES), verbosity=0, no_progress=True)
        issues_mark_demo(urls=self._all_demo_urls())
        self._demo_study(users)
        port = os.environ.get("PORT", "8000")
        self.stdout.write(self.style.SUCCESS(f"Demo ready at http://127.0.0.1:{port} — log in as:"))
        for username, password, role in DEMO_ACCOUNTS:
            self.stdout.write(f"  {username:<12} password {password:<24} {role}")

    def _accounts(self) -> dict:
        user_model = get_user_model()
        owners, _ = Group.objects.get_or_create(name=STUDY_OWNERS_GROUP)
        users = {}
        for username, password, _role in DEMO_ACCOUNTS:
            user = user_model.objects.filter(username=username).first()
            if user is None:
                user = user_model.objects.create_user(username=username, password=password)
                if username == "owner":
                    user.is_staff = user.is_superuser = True
                    user.save(update_fields=["is_staff", "is_superuser"])
                    user.groups.add(owners)
            users[username] = user
        return users

    def _all_demo_urls(self) -> list[str]:
        return [record["html_url"] for record in json.loads(DEMO_ISSUES.read_text(encoding="utf-8"))]

    def _demo_urls(self) -> list[str]:
        return [record["html_url"] for record in json.loads(DEMO_ISSUES.read_text(encoding="utf-8"))[:3]]

    def _demo_study(self, users: dict) -> None:
        """A pilot over ten demo issues with the ddl-2025 taxonomy, two raters and an adjudicator."""
        from annotator.models import Study, StudyRound
        from annotator.services.frames import FrameSpec
        from annotator.services.sampling import SampleFilters, study_round_draw
        from annotator.services.studies import study_create
        from taxonomy.models import TaxonomyVersion

        if Study.objects.filter(name=DEMO_STUDY).exists():
            return
        version = TaxonomyVersion.objects.filter(taxonomy__slug="ddl-2025").order_by("-number").first()
        if version is None:
            raise CommandError("The ddl-2025 taxonomy is missing: run `manage.py load_taxonomy ddl-2025`.")
        study = study_create(
            name=DEMO_STUDY,
            taxonomy_version=version,
            created_by=users["owner"],
            raters=[users["rater_a"], users["rater_b"]],
            adjudicators=[users["adjudicator"]],
            guidelines=DEMO_GUIDELINES,
            description="A demo pilot: label ten issues of DeepSpeed, Megatron-LM and Colossal-AI.",
            pilot_size=10,
            # Demo issues enter a frame only when chosen: the demo study chooses them all.
            frame=FrameSpec(
                kind="explicit",
                issue_ids=tuple(Issue.objects.filter(url__in=self._all_demo_urls()).values_list("pk", flat=True)),
            ),
        )
        study_round_draw(
            study=study,
            actor=users["owner"],
            filters=SampleFilters(),
            size=10,
            seed=2025,
            kind=StudyRound.Kind.PILOT,
        )
