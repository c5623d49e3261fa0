"""Output formats: the same selection written as plain text, Markdown or cleaned HTML.

Golden files (tests/golden/): real dev pages, copied gzipped, with their Markdown and HTML output
reviewed by hand against the page; ``pages.json`` says where each page comes from, which method
selects its text (a fixed one, so that the files test the writers) and what it shows.
"""

from __future__ import annotations

import gzip
import json
import random
import re
from pathlib import Path

import pytest
from hypothesis import given
from lxml import etree
from test_properties import PROPERTY_SETTINGS, soup

from scrapy_bodytext import extract, extractors
from scrapy_bodytext.api import load_document
from scrapy_bodytext.config import ExtractConfig
from scrapy_bodytext.output.formats import write_selection
from scrapy_bodytext.output.structure import BLOCKS, INLINE
from scrapy_bodytext.output.text import render_slots
from scrapy_bodytext.result import Reason

GOLDEN = Path(__file__).resolve().parent / "golden"
GOLDEN_PAGES = json.loads((GOLDEN / "pages.json").read_text(encoding="utf-8"))
EXAMPLE_SITE = Path(__file__).resolve().parent.parent / "example_project" / "news_example" / "site"
EELS = EXAMPLE_SITE / "article" / "eels-harwick-weir.html"
EELS_URL = "https://ledger.example/article/eels-harwick-weir.html"
ALLOWED_TAGS = {"article", "br", *BLOCKS, *INLINE}
ALLOWED_ATTRIBUTES = {("a", "href"), ("td", "colspan"), ("td", "rowspan"), ("th", "colspan"), ("th", "rowspan")}
EXTENSIONS = {"markdown": "md", "html": "html"}
LINK_TARGET = re.compile(r"\]\([^)\s]*\)")
LIST_NUMBER = re.compile(r"^ *\d+\. ", re.M)
MARKDOWN_MARKUP = re.compile(r"[\\*_`~\[\]#>|]")
#: a backslash-escaped character: literal text, not markup
ESCAPED = re.compile(r"\\([!-/:-@\[-`{-~])")


def markdown_words(markdown: str) -> set[str]:
    """The words of Markdown as a reader sees them: escaped characters are kept as the text has them;
    markup characters take no room (``2016[651](...)`` reads ``2016651``, as the text has it); link
    targets and list numbers are not words."""
    escaped: list[str] = []

    def protect(match: re.Match) -> str:
        escaped.append(match.group(1))
        return f"\ue000{len(escaped) - 1}\ue001"

    plain = ESCAPED.sub(protect, markdown)
    plain = MARKDOWN_MARKUP.sub("", LIST_NUMBER.sub(" ", LINK_TARGET.sub("]", plain)))
    plain = re.sub("\ue000(\\d+)\ue001", lambda m: escaped[int(m.group(1))], plain)
    return set(PLAIN_WORD.findall(plain))


PLAIN_WORD = re.compile(r"\b[^\W_]+\b")
#: characters XML 1.0 cannot hold: the HTML output leaves them out
NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def golden_page(entry: dict) -> bytes:
    return gzip.decompress((GOLDEN / f"{entry['id']}.page.html.gz").read_bytes())


def golden_result(entry: dict, output_format: str, links: bool = True):
    return extract(
        golden_page(entry),
        url=entry["url"],
        encoding=entry["charset"],
        extractor=entry["extractor"],
        output_format=output_format,
        links=links,
    )


def page_of(body: str, url: str | None = "https://site.example/dir/page.html"):
    return load_document(f"<html><body>{body}</body></html>", ExtractConfig(), url=url)


def written(body: str, output_format: str, links: bool = False, url: str | None = "https://site.example/dir/page.html"):
    """Every text of a small page written as ``output_format``."""
    doc = page_of(body, url)
    return write_selection(doc, range(len(doc.texts)), output_format, links=links)


def html_words(markup: str) -> str:
    """The text of HTML output without any whitespace (blocks and line breaks end a word)."""
    root = etree.fromstring(markup)
    for el in root.iter():
        if el.tag not in INLINE:
            el.tail = "\n" + (el.tail or "")
    return "".join("".join(root.itertext()).split())


def assert_clean_html(markup: str, text: str) -> None:
    """Well-formed, one <article>, only the allowed tags and attributes, the words of ``text``."""
    root = etree.fromstring(markup)  # raises on markup that is not well-formed
    assert root.tag == "article"
    tags = {el.tag for el in root.iter()}
    assert tags <= ALLOWED_TAGS, tags - ALLOWED_TAGS
    attributes = {(el.tag, name) for el in root.iter() for name in el.attrib}
    assert attributes <= ALLOWED_ATTRIBUTES, attributes - ALLOWED_ATTRIBUTES
    for el in root.iter("a"):
        assert not el.get("href").lower().startswith(("javascript:", "vbscript:", "data:"))
    assert html_words(markup) == "".join(NOT_XML.sub("", text).split())


# ----------------------------------------------------------------------------------- golden files
@pytest.mark.parametrize("output_format", list(EXTENSIONS))
@pytest.mark.parametrize("entry", GOLDEN_PAGES, ids=[entry["id"] for entry in GOLDEN_PAGES])
def test_real_pages_match_their_golden_files(entry, output_format):
    expected = (GOLDEN / f"{entry['id']}.{EXTENSIONS[output_format]}").read_text(encoding="utf-8")
    result = golden_result(entry, output_format)
    assert result.output_format == output_format
    assert result.text + "\n" == expected


def test_the_golden_pages_cover_what_the_formats_write():
    """Between them, the golden files hold every kind of block, in several languages."""
    markdown = {entry["id"]: (GOLDEN / f"{entry['id']}.md").read_text(encoding="utf-8") for entry in GOLDEN_PAGES}
    joined = "\n".join(markdown.values())
    for mark in ("\n## ", "\n### ", "\n- ", "\n1. ", "\n2. ", "\n> ", "\n```\n", "\n| --- |", "](https://", "**", "`"):
        assert mark in joined, mark
    assert len({entry["lang"] for entry in GOLDEN_PAGES}) >= 4


@pytest.mark.parametrize("entry", GOLDEN_PAGES, ids=[entry["id"] for entry in GOLDEN_PAGES])
def test_html_output_of_real_pages_is_clean_and_holds_the_words_of_the_text(entry):
    text = golden_result(entry, "text").text
    has_links = "](" in (GOLDEN / f"{entry['id']}.md").read_text(encoding="utf-8")
    for links in (False, True):
        html = golden_result(entry, "html", links=links)
        assert_clean_html(html.text, text)
        assert (etree.fromstring(html.text).find(".//a") is not None) == (links and has_links)


@pytest.mark.corpus
@pytest.mark.parametrize("name", extractors.names())
def test_every_method_writes_the_same_selection_in_every_format(corpus, name):
    """On sampled dev pages: same verdict and probability in all formats, clean HTML with the words of
    the text, Markdown with those words as well (markup characters aside)."""
    for page in random.Random(12).sample(corpus, 25):
        results = {
            output_format: extract(
                page.body, url=page.url, encoding=page.charset, extractor=name, output_format=output_format, links=True
            )
            for output_format in ("text", "markdown", "html")
        }
        text = results["text"].text
        assert len({(r.reason, r.is_article, r.article_probability) for r in results.values()}) == 1, page.id
        assert bool(results["markdown"].text) == bool(results["html"].text) == bool(text), page.id
        if text:
            assert_clean_html(results["html"].text, text)
            assert set(PLAIN_WORD.findall(text)) == markdown_words(results["markdown"].text), page.id


@pytest.mark.parametrize("name", ["bodytext", "wuyang"])
@PROPERTY_SETTINGS
@given(markup=soup)
def test_token_soup_in_every_format(name, markup):
    """Broken markup never makes a writer fail: same verdict as the text, clean HTML with its words."""
    url = "https://site.example/news/story.html"
    text = extract(markup, extractor=name, url=url)
    for output_format in ("markdown", "html"):
        result = extract(markup, extractor=name, url=url, output_format=output_format, links=True)
        assert result.reason is not Reason.ERROR, result.detail
        assert (result.reason, result.is_article, result.article_probability) == (
            text.reason,
            text.is_article,
            text.article_probability,
        )
        assert bool(result.text) <= bool(text.text)  # characters XML cannot hold are all it may lose
        if output_format == "html" and result.text:
            assert_clean_html(result.text, text.text)


# ----------------------------------------------------------------------------------- the eels table
def test_the_eels_article_table_is_a_markdown_pipe_table():
    """The example site's eels article, with a method whose selection keeps its data table."""
    result = extract(EELS.read_bytes(), url=EELS_URL, extractor="wuyang", output_format="markdown")
    assert (
        "| Period | Nights surveyed | Eels counted | Busiest night |\n| --- | --- | --- | --- |\n"
        "| 1–31 March | 27 | 2,140 | 408 |\n| 1–30 April | 30 | 24,915 | 5,372 |\n"
        "| 1–15 May | 15 | 14,205 | 3,890 |\n" in result.text
    )
    assert "\n## What the nightly counts show\n" in result.text


def test_the_table_writer_on_the_eels_document():
    """The table element's own slots, written directly: the writer alone, whatever a method keeps."""
    doc = load_document(EELS.read_bytes(), ExtractConfig(), url=EELS_URL)
    table = doc.tags.index("table")
    slots = range(doc.slot_starts[table], doc.slot_ends[table])
    assert write_selection(doc, slots, "markdown").splitlines() == [
        "| Period | Nights surveyed | Eels counted | Busiest night |",
        "| --- | --- | --- | --- |",
        "| 1–31 March | 27 | 2,140 | 408 |",
        "| 1–30 April | 30 | 24,915 | 5,372 |",
        "| 1–15 May | 15 | 14,205 | 3,890 |",
    ]
    assert write_selection(doc, slots, "html").startswith("<article>\n<table>\n<thead>\n<tr><th>Period</th><th>Nights")


# ----------------------------------------------------------------------------------- the writers
def test_headings_paragraphs_and_inline_formatting():
    body = (
        "<h1>Title</h1><h3>Sub <em>part</em></h3><p>Plain <b>bold</b>, <i>italic</i>, <s>gone</s>, "
        "<code>x = 1</code>, H<sub>2</sub>O and <u>under</u>.</p>"
    )
    assert written(body, "markdown") == (
        "# Title\n\n### Sub *part*\n\nPlain **bold**, *italic*, ~~gone~~, `x = 1`, H 2 O and under."
    )
    assert written(body, "html") == (
        "<article>\n<h1>Title</h1>\n<h3>Sub <em>part</em></h3>\n<p>Plain <b>bold</b>, "
        "<i>italic</i>, <s>gone</s>, <code>x = 1</code>, H <sub>2</sub> O and "
        "<u>under</u>.</p>\n</article>"
    )


def test_lists_are_numbered_and_nested_lists_indented():
    body = (
        "<ul><li>one<ul><li>one.a</li><li>one.b<ol><li>deep</li><li>deeper</li></ol></li></ul></li>"
        "<li><p>two</p><p>more of two</p></li></ul><ol><li>first<br>on two lines</li><li>second</li></ol>"
    )
    assert written(body, "markdown") == (
        "- one\n  - one.a\n  - one.b\n    1. deep\n    2. deeper\n- two\n\n  more of two\n\n"
        "1. first\\\n   on two lines\n2. second"
    )


def test_tables_take_their_header_from_the_first_row_and_escape_cells():
    body = (
        "<table><caption>Scores</caption><tr><th>Team</th><th>Points</th></tr><tr><td>A|B</td><td>3</td></tr>"
        "<tr><td colspan=2>no match</td></tr><tr><td>C</td><td>1</td><td>extra</td></tr></table>"
    )
    assert written(body, "markdown") == (
        "Scores\n\n| Team | Points |  |\n| --- | --- | --- |\n| A\\|B | 3 |  |\n| no match |  |  |\n| C | 1 | extra |"
    )
    headless = "<table><tr><td>x</td><td>y</td></tr><tr><td>1</td><td>2</td></tr></table>"
    assert written(headless, "markdown") == "| x | y |\n| --- | --- |\n| 1 | 2 |"
    assert '<td colspan="2">no match</td>' in written(body, "html")


def test_layout_tables_are_written_as_their_content():
    one_column = "<table><tr><td><p>First paragraph.</p></td></tr><tr><td>Second.</td></tr></table>"
    assert written(one_column, "markdown") == "First paragraph.\n\nSecond."
    code = "<table><tr><td><pre>1\n2</pre></td><td><pre>a = 1\nb = 2</pre></td></tr></table>"
    assert written(code, "markdown") == "```\n1\n2\n```\n\n```\na = 1\nb = 2\n```"


def test_block_quotes_and_definition_lists():
    body = (
        "<blockquote><p>Quoted <b>words</b></p>loose line<br>next line<blockquote>inner</blockquote>"
        "</blockquote><dl><dt>Term</dt><dd>Meaning</dd></dl>"
    )
    assert written(body, "markdown") == (
        "> Quoted **words**\n>\n> loose line\n>\n> next line\n>\n> > inner\n\nTerm\n: Meaning"
    )


def test_code_blocks_are_fenced_and_keep_their_layout():
    body = "<pre><code><span>def</span> <span>f</span>():\n    <span>return</span> 1\n\n```\n</code></pre>"
    assert written(body, "markdown") == "````\ndef f():\n    return 1\n\n```\n````"
    assert written(body, "html") == "<article>\n<pre>def f():\n    return 1\n\n```</pre>\n</article>"
    assert written("<p>Run <code>a`b</code> or <kbd>`x`</kbd></p>", "markdown") == "Run ``a`b`` or `` `x` ``"


def test_text_that_reads_as_markdown_is_escaped():
    body = (
        "<p>* star _under_ [brackets] &lt;tag&gt; a\\b `tick` AT&amp;amp;T</p><p># no heading</p><p>1. no list</p>"
        "<p>- no bullet</p><p>&gt; no quote</p><p>---</p><h2>C# and F# #</h2>"
    )
    assert written(body, "markdown").split("\n\n") == [
        r"\* star \_under\_ \[brackets\] \<tag> a\\b \`tick\` AT\&amp;T",
        r"\# no heading",
        r"1\. no list",
        r"\- no bullet",
        r"\> no quote",
        r"\---",
        r"## C# and F# \#",
    ]


def test_links_only_when_asked_absolute_and_never_scripts():
    body = (
        "<p><a href='/maps/river map(1).html'>map</a> <a href='javascript:alert(1)'>script</a> "
        "<a href=' JaVa\tScript:x'>script2</a> <a href='#notes'>notes</a> "
        "<a href='https://other.example/'>other</a> <a>no target</a></p>"
    )
    assert written(body, "markdown") == "map script script2 notes other no target"
    assert written(body, "markdown", links=True) == (
        "[map](https://site.example/maps/river%20map%281%29.html) script script2 "
        "[notes](https://site.example/dir/page.html#notes) [other](https://other.example/) no target"
    )
    assert written(body, "html", links=True) == (
        '<article>\n<p><a href="https://site.example/maps/river map(1).html">map</a> script script2 '
        '<a href="https://site.example/dir/page.html#notes">notes</a> <a href="https://other.example/">other</a> '
        "no target</p>\n</article>"
    )
    assert "[map](/maps/river%20map%281%29.html)" in written(body, "markdown", links=True, url=None)


def test_html_leaves_out_everything_but_structure():
    body = (
        "<div class='story' id='s1' style='color:red' onclick='steal()'><h2 class='x'>Head</h2>"
        "<p onmouseover='x()'>Text <span class='y'>in span</span> <font size=2>font</font>"
        "<img src='a.png' onerror='x()'></p><form><input value='no'></form><table border=1>"
        "<tr><td style='x' onclick='y'>cell</td></tr></table></div>"
    )
    html = written(body, "html", links=True)
    assert html == (
        "<article>\n<h2>Head</h2>\n<p>Text in span font</p>\n<table>\n<tr><td>cell</td></tr>\n</table>\n</article>"
    )


def test_elements_out_of_place_are_left_out_with_their_text_kept():
    body = (
        "<li>item without list</li><td>cell without table</td><h2>Head<div>line two</div></h2>"
        "<b>bold <p>paragraph in bold</p></b><a href='/x'><h3>Linked heading</h3></a><pre><p>in pre</p></pre>"
        "<div>a</div><div>b</div>"
    )
    assert written(body, "html", links=True) == (
        "<article>\n<p>item without list</p>\n<p>cell without table</p>\n<h2>Head<br/>line two</h2>\n"
        "<p><b>bold</b></p>\n<p>paragraph in bold</p>\n<h3>Linked heading</h3>\n<pre>in pre</pre>\n<p>a</p>\n"
        "<p>b</p>\n</article>"
    )


def test_characters_xml_cannot_hold_never_break_the_html():
    html = written("<p>a\x0bb\x1fc\ufffed\x7fe</p>", "html")
    assert etree.fromstring(html).findtext("p") == "a b cd\x7fe"


def test_spaces_sit_outside_inline_elements_and_never_double():
    assert (
        written("<p>a<b> bold </b>b  <i> x</i><span> </span> y\n\n z <b> </b> w</p>", "html")
        == "<article>\n<p>a <b>bold</b> b <i>x</i> y z w</p>\n</article>"
    )


# ----------------------------------------------------------------------------------- the contract
@pytest.mark.parametrize("name", extractors.names())
def test_methods_return_ascending_slots_and_text_is_written_from_them(name):
    body = EELS.read_bytes()
    doc = load_document(body, ExtractConfig(), url=EELS_URL)
    found = extractors.load(name).extract(doc, ExtractConfig().options_for(name))
    slots = list(found.slots)
    assert slots == sorted(set(slots)) and all(0 <= slot < len(doc.texts) for slot in slots)
    assert extract(body, url=EELS_URL, extractor=name).text == render_slots(doc, slots)


def test_nothing_selected_is_empty_in_every_format():
    for output_format in ("text", "markdown", "html"):
        result = extract("<html><body><p></p></body></html>", output_format=output_format)
        assert (result.text, result.output_format) == ("", output_format)
    doc = page_of("<p>x</p>")
    assert write_selection(doc, [], "html") == write_selection(doc, [], "markdown") == ""


def test_an_unknown_format_is_a_configuration_error():
    with pytest.raises(ValueError, match="output_format must be one of text, markdown, html"):
        extract("<p>x</p>", output_format="pdf")
    with pytest.raises(ValueError, match="links must be True or False"):
        ExtractConfig(links="yes")
    with pytest.raises(ValueError, match="unknown output format"):
        write_selection(page_of("<p>x</p>"), [0], "rtf")
