"""Hostile issue text must reach the page harmless, whether written as Markdown or as HTML."""

from html.parser import HTMLParser

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from annotator.rendering import render_markdown, sanitize_html
from annotator.rendering.sanitize import LINK_REL, TAGS


class _Collect(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))

    handle_startendtag = handle_starttag


def elements(html: str) -> list[tuple[str, dict[str, str | None]]]:
    parser = _Collect()
    parser.feed(html)
    parser.close()
    return parser.elements


def assert_harmless(html: str) -> None:
    """No element, attribute or URL that could run code, restyle the page or leave it."""
    for tag, attrs in elements(html):
        assert tag in TAGS, f"<{tag}> survived in {html!r}"
        for name, value in attrs.items():
            assert not name.startswith("on"), f"event handler {name} survived in {html!r}"
            assert name not in {"style", "srcdoc", "formaction", "action", "xmlns", "id"}, f"{name} survived"
            if name in {"href", "src"}:
                url = (value or "").strip().lower()
                allowed = ("http://", "https://", "mailto:", "#") if name == "href" else ("http://", "https://")
                assert url.startswith(allowed), f"{tag} {name}={value!r} survived in {html!r}"
        if tag == "a" and "href" in attrs:
            assert attrs.get("rel") == LINK_REL, f"link without rel: {html!r}"
    # Text such as "[click](javascript:...)" may stay visible as text; as markup it must not.
    lowered = html.lower()
    for needle in ("<script", "<iframe", "<object", "<embed", "<form", "<svg", "<math", "<style", "<meta", "<base"):
        assert needle not in lowered, f"{needle} survived in {html!r}"


ATTACKS = [
    ("script tag", "<script>alert(1)</script>"),
    ("script in markdown paragraph", "Hello <script>alert(document.cookie)</script> world"),
    ("img onerror", '<img src=x onerror="alert(1)">'),
    ("img onerror unquoted", "<img src=x onerror=alert(1)//>"),
    ("markdown javascript link", "[click](javascript:alert(1))"),
    ("markdown javascript link, upper case", "[click](JaVaScRiPt:alert(1))"),
    ("html javascript link", '<a href="javascript:alert(1)">click</a>'),
    ("tab-encoded javascript", '<a href="jav&#x09;ascript:alert(1)">click</a>'),
    ("newline-encoded javascript", '<a href="jav&#x0A;ascript:alert(1)">x</a>'),
    ("entity-encoded javascript", '<a href="&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;:alert(1)">x</a>'),
    ("markdown entity javascript", "[x](&#106;avascript:alert(1))"),
    ("leading space javascript", '<a href=" javascript:alert(1)">x</a>'),
    ("vbscript link", '<a href="vbscript:msgbox(1)">x</a>'),
    ("data url link", '<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">x</a>'),
    ("data url image markdown", "![x](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+)"),
    ("data url image html", '<img src="data:image/png;base64,iVBORw0KGgo=">'),
    ("protocol-relative image", '<img src="//evil.example/x.png">'),
    ("relative link into the app", '<a href="/admin/">admin</a>'),
    ("iframe", '<iframe src="https://evil.example"></iframe>'),
    ("iframe srcdoc", '<iframe srcdoc="<script>alert(1)</script>"></iframe>'),
    ("object", '<object data="https://evil.example/x.swf"></object>'),
    ("embed", '<embed src="https://evil.example/x.swf">'),
    ("svg onload", "<svg onload=alert(1)>"),
    ("svg with script", "<svg><script>alert(1)</script></svg>"),
    ("math href", '<math><a xlink:href="javascript:alert(1)">x</a></math>'),
    ("style attribute", '<p style="position:fixed;top:0">cover the page</p>'),
    ("style element", "<style>body{display:none}</style>"),
    ("form and input", '<form action="https://evil.example"><input name="password"><button>Go</button></form>'),
    ("button formaction", '<button formaction="javascript:alert(1)">x</button>'),
    ("textarea breakout", "<textarea></textarea><script>alert(1)</script>"),
    ("meta refresh", '<meta http-equiv="refresh" content="0;url=https://evil.example">'),
    ("base tag", '<base href="https://evil.example/">'),
    ("link stylesheet", '<link rel="stylesheet" href="https://evil.example/x.css">'),
    ("nested script split", "<scr<script>ipt>alert(1)</scr</script>ipt>"),
    ("unclosed tag trick", '<img src="x" alt="<script>" onerror=alert(1)'),
    ("comment hiding script", "<!--<script>alert(1)</script>-->"),
    ("details ontoggle", "<details open ontoggle=alert(1)><summary>x</summary></details>"),
    ("a onmouseover", '<a href="https://ok.example" onmouseover="alert(1)">x</a>'),
    ("class impersonation", '<span class="tpl-placeholder badge">x</span><div class="panel">y</div>'),
    ("id clobbering", '<a id="comments" name="x" href="https://ok.example">x</a>'),
    ("javascript in reference link", "[x][r]\n\n[r]: javascript:alert(1)"),
    ("javascript in autolink", "<javascript:alert(1)>"),
    ("html inside code fence", "```html\n<script>alert(1)</script>\n```"),
]


@pytest.mark.parametrize("source", [attack for _, attack in ATTACKS], ids=[name for name, _ in ATTACKS])
def test_hostile_markdown_is_rendered_harmless(source):
    assert_harmless(render_markdown(source))


@pytest.mark.parametrize("source", [attack for _, attack in ATTACKS], ids=[name for name, _ in ATTACKS])
def test_hostile_html_is_sanitised_harmless(source):
    assert_harmless(sanitize_html(source))


def test_code_in_a_fence_is_shown_as_text_not_run():
    html = render_markdown("```html\n<script>alert(1)</script>\n```")
    assert "&lt;" in html and "script" in html


def test_style_attribute_and_event_handlers_are_removed_but_the_text_stays():
    html = render_markdown('<p style="color:red" onclick="x()">keep me</p>')
    assert "keep me" in html
    assert "style" not in html and "onclick" not in html


def test_links_get_nofollow_noopener_noreferrer():
    html = render_markdown("[docs](https://www.deepspeed.ai/) and https://github.com/deepspeedai/DeepSpeed")
    anchors = [attrs for tag, attrs in elements(html) if tag == "a"]
    assert [a["href"] for a in anchors] == ["https://www.deepspeed.ai/", "https://github.com/deepspeedai/DeepSpeed"]
    assert all(a["rel"] == "nofollow noopener noreferrer" for a in anchors)


def test_images_become_placeholders_that_link_to_them():
    # Loading an image tells its site who opened the issue: the page loads it only when the rater asks.
    src = "https://user-images.githubusercontent.com/1/loss.png"
    for source in (f"![plot]({src})", f'<img src="{src}" alt="plot">'):
        html = render_markdown(source)
        assert "<img" not in html
        assert ("a", {"class": "external-image", "href": src, "data-src": src, "rel": LINK_REL}) in elements(html)
        assert "[image: plot]" in html


def test_an_image_inside_a_link_becomes_a_placeholder_without_a_second_link():
    html = render_markdown("[![build](https://ci.example/badge.svg)](https://ci.example/run/1)")
    assert [tag for tag, _ in elements(html)] == ["p", "a", "span"]
    assert ("span", {"class": "external-image", "data-src": "https://ci.example/badge.svg"}) in elements(html)


def test_an_image_label_cannot_break_out_of_its_placeholder():
    html = render_markdown('<img src="https://x.example/a.png" alt="&quot;><script>alert(1)</script>">')
    assert "<script" not in html and "<img" not in html


def test_only_the_renderers_own_classes_survive():
    html = sanitize_html('<span class="tpl-placeholder evil">x</span><pre class="highlight other">y</pre>')
    assert elements(html) == [("span", {"class": "tpl-placeholder"}), ("pre", {**CODE_BLOCK, "class": "highlight"})]


CODE_BLOCK = {"tabindex": "0", "role": "region", "aria-label": "Code block"}


@pytest.mark.parametrize(
    "source",
    [
        "```\nlong log line\n```",
        "    indented code",
        '<pre tabindex="-1" role="button" aria-label="Submit" aria-hidden="true">raw HTML</pre>',
        "```\n" + "line\n" * 40 + "```",  # folded into <details>
    ],
)
def test_every_code_block_is_reachable_by_keyboard_and_named_by_the_app_only(source):
    blocks = [attrs for tag, attrs in elements(render_markdown(source)) if tag == "pre"]
    assert blocks == [CODE_BLOCK], "a block that scrolls sideways must take the focus, and an issue cannot set it"


TABLE_BOX = {"class": "table-scroll", "tabindex": "0", "role": "region", "aria-label": "Table"}


@pytest.mark.parametrize(
    "source",
    [
        "| a | b |\n|---|---|\n| 1 | 2 |",
        '<table role="presentation" tabindex="3"><tr><td>raw HTML</td></tr></table>',
        "<table><tr><td>not closed",
    ],
)
def test_every_table_scrolls_inside_a_focusable_box_and_keeps_its_role(source):
    html = render_markdown(source)
    found = elements(html)
    tags = [tag for tag, _ in found]
    assert found[tags.index("table") - 1] == ("div", TABLE_BOX), "the box opens right before the table"
    assert dict(found[tags.index("table")][1]) == {}, "the table keeps no attribute an issue gave it"
    assert html.count("</table></div>") == html.count("<table") == 1


def test_pre_written_as_text_stays_text():
    html = render_markdown("`<pre>` and &lt;pre&gt; in prose")
    assert "<pre" not in html.replace("&lt;pre", "")


_FRAGMENTS = st.sampled_from(
    [
        "<", ">", "\"", "'", "=", "/", " ", "\n", "&#", "x09;", "script", "img", "src", "href", "a", "on", "error",
        "load", "javascript:", "java", "script:", "data:", "alert(1)", "svg", "iframe", "style", "[", "]", "(", ")",
        "!", "`", "```", "*", "&", ";", "<!--", "-->", "\t", "&#x3A;", "&colon;", "http://", "vbscript:",
    ]
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(_FRAGMENTS, max_size=40).map("".join))
def test_any_mix_of_dangerous_fragments_renders_harmless(source):
    assert_harmless(render_markdown(source))
