"""Issue text to safe HTML: Markdown, sanitising, highlighting, template placeholders, sections.

Pure code (no Django): the template filters in annotator.templatetags call it.
"""

from .highlight import pygments_css, render_code_block
from .markdown import render_markdown
from .placeholders import split_placeholders
from .sanitize import sanitize_html
from .search_marks import highlight_terms
from .sections import Section, environment_sections, split_sections

__all__ = [
    "Section",
    "environment_sections",
    "highlight_terms",
    "pygments_css",
    "render_code_block",
    "render_markdown",
    "sanitize_html",
    "split_placeholders",
    "split_sections",
]
