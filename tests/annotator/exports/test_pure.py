"""The export building blocks stay pure: importing them loads no Django."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def test_importing_the_exports_package_does_not_import_django():
    code = "import sys, annotator.exports; print(sorted(m for m in sys.modules if m.split('.')[0] == 'django'))"
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"
