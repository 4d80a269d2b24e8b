"""axe-core (WCAG 2.1 A and AA rules) run in the page by Playwright, with a report a person can read."""

from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Page

WCAG_21_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
AXE_OPTIONS = {"runOnly": {"type": "tag", "values": WCAG_21_AA}, "resultTypes": ["violations"]}

_axe = Axe()


def axe_violations(page: Page) -> list[dict]:
    """axe's violations on the page as it is now: one entry per rule, each with its failing elements."""
    return _axe.run(page, options=AXE_OPTIONS).response["violations"]


def violating_elements(violations: list[dict]) -> int:
    return sum(len(violation["nodes"]) for violation in violations)


def violations_report(by_page: dict[str, list[dict]]) -> str:
    """Per page: each rule broken, how to fix it, and the elements that break it (selector, markup, why)."""
    lines = []
    for name, violations in by_page.items():
        if not violations:
            continue
        lines.append(f"{name}: {violating_elements(violations)} violating element(s)")
        for violation in violations:
            lines.append(f"  [{violation['impact']}] {violation['id']}: {violation['help']} ({violation['helpUrl']})")
            for node in violation["nodes"]:
                lines.append(f"    at {', '.join(map(str, node['target']))}: {node['html'][:160]}")
                for check in node.get("any", []) + node.get("all", []) + node.get("none", []):
                    lines.append(f"      - {check['message']}")
    return "\n".join(lines)
