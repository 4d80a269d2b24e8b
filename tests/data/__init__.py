"""Published data the tests read, kept in the repository so a fresh clone runs every test (see README.md here)."""

from pathlib import Path

TEST_DATA = Path(__file__).resolve().parent
REFERENCE_VECTORS = TEST_DATA / "agreement" / "reference_vectors.json"
GU_TOSEM23 = TEST_DATA / "gu-tosem23"
