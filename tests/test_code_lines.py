"""Code as its reader sees it (docs/methods.md#what-main-text-is): the line numbers syntax
highlighters draw beside code (a gutter cell, a number cell per row, a number span per line) are no
text of the page, so code reads as its lines of code in every format."""

from __future__ import annotations

import re

import pytest

from scrapy_bodytext import extract
from scrapy_bodytext.api import load_document
from scrapy_bodytext.config import ExtractConfig

PROSE = [
    f"<p>Step {n} explains how the parser reads the configuration file and why the loader needs the "
    "schema before it starts the pool of workers.</p>"
    for n in range(6)
]
CODE = [f"total_{i} = compute(value_{i}, limit={i * 10})" for i in range(1, 6)]
NUMBERS = "\n".join(str(i) for i in range(1, 6))
URL = "https://blog.example/2026/loader"

GUTTER_TABLE = (
    f'<table class="highlighttable"><tr><td class="linenos"><div class="linenodiv"><pre>{NUMBERS}</pre></div></td>'
    f'<td class="code"><div class="highlight"><pre>{chr(10).join(CODE)}</pre></div></td></tr></table>'
)
ROW_TABLE = (
    '<table class="highlight tab-size js-file-line-container">'
    + "".join(
        f'<tr><td id="L{i}" class="blob-num js-line-number">{i}</td><td id="LC{i}" class="blob-code blob-code-inner">'
        f"{line}</td></tr>"
        for i, line in enumerate(CODE, 1)
    )
    + "</table>"
)
NUMBER_SPANS = (
    "<pre><code>"
    + "\n".join(f'<span class="lineno">{i} </span>{line}' for i, line in enumerate(CODE, 1))
    + "</code></pre>"
)


def page(code: str) -> str:
    return (
        "<html><head><title>How the loader works</title></head><body><article><h1>How the loader works</h1>"
        f"{''.join(PROSE[:3])}{code}{''.join(PROSE[3:])}</article></body></html>"
    )


def code_text(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if "compute(" in line or re.fullmatch(r"[\d\s]+", line))


@pytest.mark.parametrize("code", [GUTTER_TABLE, ROW_TABLE, NUMBER_SPANS], ids=["gutter", "rows", "spans"])
def test_line_numbers_are_no_text_of_the_page(code):
    doc = load_document(page(code), ExtractConfig(), url=URL)
    text = "".join(doc.texts)
    assert all(line in text for line in CODE)
    assert not re.search(r"(?:^|\s)[1-5]\s*total_", text) and "1\n2" not in text


@pytest.mark.parametrize("code", [GUTTER_TABLE, NUMBER_SPANS], ids=["gutter", "spans"])
def test_a_numbered_code_block_is_its_lines_of_code(code):
    plain = extract(page(code), url=URL).text
    assert code_text(plain) == " ".join(CODE)  # plain text writes a code block on one line, as any <pre>
    markdown = extract(page(code), url=URL, output_format="markdown").text
    assert "```\n" + "\n".join(CODE) + "\n```" in markdown


def test_a_table_of_numbered_rows_is_one_line_per_line_of_code():
    for output_format in ("text", "markdown"):
        text = extract(page(ROW_TABLE), url=URL, output_format=output_format).text
        assert code_text(text.replace("\\_", "_")) == "\n".join(CODE), output_format


def test_numbers_that_are_content_stay():
    table = "<table><tr><th>Year</th><th>Boats</th></tr><tr><td class='num'>2024</td><td>12</td></tr></table>"
    text = extract(page(table + "<p class='line-number'>Call line 3 on 555 0100 for the office.</p>"), url=URL).text
    assert "2024" in text and "Call line 3" in text
