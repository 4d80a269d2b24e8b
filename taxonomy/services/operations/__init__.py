"""Editing a draft taxonomy version: every operation locks the version, records lineage, bumps the revision.

Who may edit: taxonomy maintainers and staff (`core.permissions.can_manage_taxonomies`), see `can_edit_taxonomy`.
Published versions never change; `version_draft_from` starts a new draft from one.
"""

from .categories import (
    category_add,
    category_alias_add,
    category_deprecate,
    category_move,
    category_redefine,
    category_rename,
)
from .common import EDIT_DENIED, can_edit_taxonomy
from .dispatch import operation_run
from .drafts import version_draft_from, version_publish_with_changelog
from .mapping import CategoryFate, version_category_map
from .restructure import categories_merge, category_split

__all__ = [
    "EDIT_DENIED",
    "CategoryFate",
    "can_edit_taxonomy",
    "categories_merge",
    "category_add",
    "category_alias_add",
    "category_deprecate",
    "category_move",
    "category_redefine",
    "category_rename",
    "category_split",
    "operation_run",
    "version_category_map",
    "version_draft_from",
    "version_publish_with_changelog",
]
