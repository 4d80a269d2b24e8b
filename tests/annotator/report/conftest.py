from tests.annotator.exports_service.conftest import _clear_cache, world  # noqa: F401 - fixtures
from tests.annotator.studies.conftest import client_for, outsider  # noqa: F401 - fixtures
