"""What a reader sees: a body that server-side rendering streams into a hidden container is the page's
content for every method; hidden menus, dialogs and panels stay out (docs/front-end.md#what-a-reader-sees)."""

from __future__ import annotations

import pytest
from lxml import etree

from scrapy_bodytext.api import extract, load_document
from scrapy_bodytext.config import ExtractConfig
from scrapy_bodytext.page.document import MIN_DEFERRED_PROSE, reveal_deferred
from scrapy_bodytext.page.reasons import Deadline
from scrapy_bodytext.result import LimitExceeded, Reason

#: the default method and two published ones
METHODS = ("bodytext", "ctd", "pvalue")

PARAGRAPHS = (
    (
        "Tide pools look calm at low water, but the animals living in them face a daily cycle of heat, "
        "cold, fresh rain and salt spray that would kill most creatures within hours of exposure."
    ),
    (
        "In winter the greatest danger is not the cold water itself but the air above it. When the tide "
        "drops during a frosty night, barnacles and mussels are left exposed to temperatures far below freezing."
    ),
    (
        "Many snails survive by pulling deep into their shells and sealing the opening with a hard plate. "
        "Inside, their body fluids hold enough dissolved salts to keep ice crystals from forming for hours."
    ),
    (
        "Anemones take another approach. They fold their tentacles inward, cover themselves with bits of "
        "shell and gravel, and wait for the water to return, losing a little moisture but very little heat."
    ),
    (
        "Researchers who counted animals along one rocky shore over ten winters found that the pools with "
        "more seaweed cover lost far fewer residents during cold snaps than the bare pools nearby."
    ),
    (
        "The seaweed acts like a blanket. It traps a thin layer of water against the rock, and that layer "
        "cools much more slowly than open air, giving the smaller animals a few extra hours of shelter."
    ),
)
#: a sentence of each paragraph, to look for in the output
SENTENCES = (
    "a daily cycle of heat",
    "frosty night",
    "sealing the opening",
    "fold their tentacles",
    "counted animals along one rocky shore",
    "The seaweed acts like a blanket",
)

NAV = (
    '<header><nav><a href="/">Home</a> <a href="/notes">Notes</a> <a href="/about">About us</a> '
    '<a href="/contact">Contact</a></nav></header>'
)
FOOTER = '<footer><p>Shoreline Notes, a small magazine about the coast.</p><a href="/privacy">Privacy</a></footer>'
MOBILE_MENU = (
    '<div hidden class="drawer" id="drawer"><ul><li><a href="/">Home</a></li><li><a href="/notes">'
    'All notes on tide pools and rocky shores</a></li><li><a href="/about">About the editors</a></li>'
    "</ul></div>"
)
COOKIE_DIALOG = (
    '<div hidden role="dialog" aria-modal="true"><h2>Your choices about cookies</h2>'
    "<p>We and our partners store small files on your device to measure how the magazine is read and to "
    "remember your settings between visits. You can accept all of them, refuse all of them or pick "
    "the purposes you agree with one by one, and change your mind later from the footer.</p>"
    "<p>Refusing does not stop you from reading any page. Some embedded maps and videos will then ask "
    "again before they load, because the services that provide them set files of their own.</p>"
    "<p>Details of every purpose, partner and storage period are listed in the cookie statement.</p>"
    "</div>"
)
NEWSLETTER_PANEL = (
    '<div hidden class="popup"><p>Get one letter a month about the coast, written by the editors. '
    "No advertising, and you can leave with one click.</p></div>"
)


def _article(paragraphs=PARAGRAPHS) -> str:
    return "".join(f"<p>{text}</p>" for text in paragraphs)


def streamed_page(segment_attributes: str = 'hidden id="S:0"') -> str:
    """A page rendered on the server that streams: the shell shows the headline and a placeholder, the
    body comes after the footer in a hidden segment that a script swaps in."""
    return (
        '<!DOCTYPE html><html lang="en"><head><title>How tide pools survive the winter</title></head><body>'
        f'{NAV}<main><h1>How tide pools survive the winter</h1><template id="B:0"></template>'
        '<div class="skeleton"></div><div class="skeleton"></div></main>'
        f"{FOOTER}{MOBILE_MENU}"
        f'<div {segment_attributes}><article><p class="byline">By the editors</p>{_article()}'
        '<div hidden class="share"><a href="/share">Share this note</a></div></article></div>'
        '<script>$RC("B:0","S:0")</script></body></html>'
    )


def furnished_page() -> str:
    """A page whose article is visible, with the hidden furniture of today's templates beside it."""
    return (
        '<!DOCTYPE html><html lang="en"><head><title>How tide pools survive the winter</title></head><body>'
        f"{NAV}{MOBILE_MENU}<main><article><h1>How tide pools survive the winter</h1>{_article()}</article></main>"
        f"{NEWSLETTER_PANEL}{COOKIE_DIALOG}{FOOTER}</body></html>"
    )


def doc_text(page: str) -> str:
    return " ".join(load_document(page, ExtractConfig()).texts)


# ----------------------------------------------------------------------------- the front end
@pytest.mark.parametrize("attributes", ['hidden id="S:0"', 'hidden=""', 'hidden="hidden" class="segment"'])
def test_a_streamed_body_in_a_hidden_container_is_what_a_reader_sees(attributes):
    text = doc_text(streamed_page(attributes))
    assert all(sentence in text for sentence in SENTENCES)
    # what stays hidden inside it and beside it: the share box, the mobile menu
    assert "Share this note" not in text
    assert "About the editors" not in text


def test_hidden_menus_dialogs_and_panels_beside_a_visible_article_stay_out():
    text = doc_text(furnished_page())
    assert all(sentence in text for sentence in SENTENCES)
    for furniture in (
        "About the editors",
        "Your choices about cookies",
        "Refusing does not stop you",
        "one letter a month",
    ):
        assert furniture not in text


def test_a_dialog_holding_the_most_prose_of_a_shell_page_stays_hidden():
    dialog = COOKIE_DIALOG.replace(' aria-modal="true"', "")  # named a dialog by its role alone
    page = (
        f"<html><body>{NAV}<main><h1>Sign in</h1><template></template></main>{dialog}"
        f'<div hidden aria-hidden="true">{_article()}</div><nav hidden>{_article()}</nav>{FOOTER}</body></html>'
    )
    text = doc_text(page)
    assert "Your choices about cookies" not in text
    assert "frosty night" not in text


def test_a_hidden_container_with_little_prose_stays_hidden_even_on_a_shell_page():
    short = PARAGRAPHS[0]
    assert len(short) < MIN_DEFERRED_PROSE
    page = f"<html><body>{NAV}<main><h1>Tide pools</h1></main><div hidden><p>{short}</p></div></body></html>"
    assert "a daily cycle of heat" not in doc_text(page)


def test_a_hidden_container_is_not_shown_when_the_visible_page_holds_more_prose():
    page = (
        f"<html><body><main>{_article(PARAGRAPHS[:4])}</main>"
        f'<div hidden class="print-edition">{_article(PARAGRAPHS[4:])}</div></body></html>'
    )
    text = doc_text(page)
    assert "fold their tentacles" in text
    assert "The seaweed acts like a blanket" not in text


def test_a_streamed_container_also_hidden_by_its_style_stays_hidden():
    page = streamed_page('hidden style="display: none"')
    assert "frosty night" not in doc_text(page)


def test_until_found_content_is_shown():
    page = (
        "<html><body><h1>Questions</h1><h2>Do tide pools freeze?</h2>"
        '<div hidden="until-found"><p>Rarely: the salt keeps the water liquid.</p></div>'
        '<div hidden="UNTIL-FOUND"><p>Sea ice forms only in the coldest bays.</p></div></body></html>'
    )
    text = doc_text(page)
    assert "the salt keeps the water liquid" in text
    assert "Sea ice forms only" in text


# ----------------------------------------------------------------------------- every method
@pytest.mark.parametrize("method", METHODS)
def test_every_method_extracts_the_streamed_body(method):
    result = extract(streamed_page(), extractor=method)
    found = sum(sentence in result.text for sentence in SENTENCES)
    assert found >= 5, (method, result.text)
    assert "About the editors" not in result.text


@pytest.mark.parametrize("method", METHODS)
def test_every_method_leaves_the_hidden_furniture_out(method):
    result = extract(furnished_page(), extractor=method)
    assert sum(sentence in result.text for sentence in SENTENCES) >= 5, (method, result.text)
    for furniture in ("About the editors", "Your choices about cookies", "one letter a month"):
        assert furniture not in result.text, (method, furniture)


# ----------------------------------------------------------------------------- bad input
def test_weighing_many_hidden_containers_stops_at_the_time_budget():
    body = etree.fromstring("<body>" + "<div hidden=''><p>short</p></div>" * 5000 + "</body>")
    with pytest.raises(LimitExceeded) as stopped:
        reveal_deferred(body, list(body), deadline=Deadline(0.0, 0.0))
    assert stopped.value.reason is Reason.TIME_LIMIT
    assert reveal_deferred(body, list(body)) == 0  # little prose in each: all stay hidden


def test_nested_hidden_containers_show_the_outer_one_only():
    page = (
        f"<html><body><h1>Tide pools</h1><div hidden>{_article(PARAGRAPHS[:3])}"
        f"<div hidden>{_article(PARAGRAPHS[3:])}</div></div></body></html>"
    )
    text = doc_text(page)
    assert "frosty night" in text
    assert "fold their tentacles" not in text
