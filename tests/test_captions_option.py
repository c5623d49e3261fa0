"""The ``captions`` option (docs/methods.md#captions-apart-or-inline): the article's picture captions
apart from the main text (the default) or inline where they stand, the same through ``extract()``,
``ExtractConfig``, ``BODYTEXT_CAPTIONS``, the command line and the datatrove step."""

from __future__ import annotations

import json

import pytest
from scrapy.settings import Settings

from scrapy_bodytext import extract
from scrapy_bodytext.cli import main
from scrapy_bodytext.config import ExtractConfig
from scrapy_bodytext.plugin.settings import BodyTextSettingError, load_settings

BODY = [
    f"<p>Paragraph {n} tells how the fishermen, the council and the builders worked through the nights "
    "to get the harbour walls back up before the winter season began.</p>"
    for n in range(6)
]
CAPTION = "The rebuilt wall on Monday morning."
CREDIT = "Photo: Jane Roe"
PAGE = (
    "<html><head><title>Harbour reopens</title></head><body><article><h1>Harbour reopens after the storm</h1>"
    f"{''.join(BODY[:3])}<figure><img src=wall.jpg><figcaption>{CAPTION}<br>{CREDIT}</figcaption></figure>"
    f"{''.join(BODY[3:])}</article></body></html>"
)
URL = "https://news.example/2026/harbour"


def lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip()]


def test_captions_apart_by_default_and_inline_where_they_stand_in_plain_text():
    apart = extract(PAGE, url=URL)
    assert CAPTION not in apart.text and apart.captions == f"{CAPTION}\n{CREDIT}"
    inline = extract(PAGE, url=URL, captions="inline")
    assert inline.captions == ""
    found = lines(inline.text)
    at = found.index(CAPTION)
    assert (
        found[at + 1] == CREDIT and found[at - 1].startswith("Paragraph 2") and found[at + 2].startswith("Paragraph 3")
    )
    assert [line for line in found if line not in (CAPTION, CREDIT)] == lines(apart.text)
    assert inline.article_probability == apart.article_probability


def test_inline_captions_are_figure_captions_in_html_and_markdown():
    html = extract(PAGE, url=URL, captions="inline", output_format="html").text
    assert f"<figure><figcaption>{CAPTION}<br/>{CREDIT}</figcaption></figure>" in html
    assert html.index("Paragraph 2") < html.index("<figure>") < html.index("Paragraph 3")
    markdown = extract(PAGE, url=URL, captions="inline", output_format="markdown").text
    assert f"\n\n*{CAPTION}\\\n{CREDIT}*\n\n" in markdown
    assert "figure" not in extract(PAGE, url=URL, output_format="html").text


def test_the_option_is_checked_where_it_is_given():
    assert ExtractConfig(captions="inline").captions == "inline"
    with pytest.raises(ValueError, match="captions must be one of apart, inline"):
        ExtractConfig(captions="below")
    assert load_settings(Settings({})).extract.captions == "apart"
    assert load_settings(Settings({"BODYTEXT_CAPTIONS": "inline"})).extract.captions == "inline"
    with pytest.raises(BodyTextSettingError, match="^BODYTEXT_CAPTIONS: "):
        load_settings(Settings({"BODYTEXT_CAPTIONS": "below"}))


def test_the_command_line_writes_captions_inline_when_asked(tmp_path, capsys):
    path = tmp_path / "page.html"
    path.write_text(PAGE, encoding="utf-8")
    assert main(["extract", "--json", "--url", URL, str(path)]) == 0
    apart = json.loads(capsys.readouterr().out)
    assert main(["extract", "--json", "--captions", "inline", "--url", URL, str(path)]) == 0
    inline = json.loads(capsys.readouterr().out)
    assert apart["captions"] == f"{CAPTION}\n{CREDIT}" and CAPTION not in apart["text"]
    assert inline["captions"] == "" and CAPTION in inline["text"]


def test_the_datatrove_step_takes_the_option():
    pytest.importorskip("datatrove")
    from scrapy_bodytext.integrations.datatrove import BodyTextExtractor

    assert BodyTextExtractor().config.captions == "apart"
    assert BodyTextExtractor(captions="inline").config.captions == "inline"
    with pytest.raises(ValueError, match="captions must be one of"):
        BodyTextExtractor(captions="below")
