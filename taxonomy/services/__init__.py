"""Writes to taxonomies: the one way to change them. Each function is one transaction."""

from .templates import (
    TemplateLoadResult,
    shipped_templates,
    taxonomy_template_load,
    template_path_resolve,
)
from .versions import version_delete, version_ensure_draft, version_publish

__all__ = [
    "TemplateLoadResult",
    "shipped_templates",
    "taxonomy_template_load",
    "template_path_resolve",
    "version_delete",
    "version_ensure_draft",
    "version_publish",
]
