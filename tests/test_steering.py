"""The steering's decisions (``sites/steering.py``), page by page: article links first and never
pruned, barren shapes pruned and probed, a list's paging stopped, memory bounded."""

from __future__ import annotations

import pytest

from scrapy_bodytext.sites.links import Anchor
from scrapy_bodytext.sites.steering import ARTICLE_PRIORITY, Steering

SITE = "https://news.example.org"


def visit(steering: Steering, path: str, links: list[str], article: bool):
    steering.fetched(SITE + path)
    decisions = steering.links(SITE + path, [(SITE + link, Anchor()) for link in links])
    return decisions, steering.outcome(SITE + path, article)


def test_article_links_come_first():
    decisions, _ = visit(Steering(), "/", ["/about/", "/tag/x/", "/page/2/", "/2024/05/03/a-long-post-title/"], False)
    by_path = {decision.url.removeprefix(SITE): decision for decision in decisions}
    order = sorted(by_path, key=lambda path: -by_path[path].priority)
    assert order == ["/2024/05/03/a-long-post-title/", "/page/2/", "/tag/x/", "/about/"]
    assert by_path["/2024/05/03/a-long-post-title/"].priority >= ARTICLE_PRIORITY


def test_a_barren_shape_is_pruned_then_probed_and_articles_never():
    steering = Steering("prune", shape_pages=3, probe_every=4)
    for number in range(3):  # three tag pages, no article, no new article link
        visit(steering, f"/topics/t{number}/", [], False)
    decisions = [steering.link(SITE + "/", f"{SITE}/topics/n{number}/") for number in range(8)]
    assert [decision.prune for decision in decisions].count("shape") == 6
    assert [decision.probe for decision in decisions] == [False, False, False, True] * 2
    # a probe that turns out an article resumes the shape
    visit(steering, "/topics/n3/", [], True)
    assert steering.link(SITE + "/", SITE + "/topics/n99/").prune == ""
    # an article link is never pruned, whatever its shape did
    assert steering.link(SITE + "/", SITE + "/topics/why-the-bridge-was-closed-today/").prune == ""


def test_paging_stops_after_pages_without_new_article_links():
    steering = Steering("prune", paging_pages=2)
    visit(steering, "/tag/x/", ["/2024/05/03/first-post-here/", "/tag/x/page/2/"], False)
    visit(steering, "/tag/x/page/2/", ["/2024/05/03/first-post-here/"], False)
    visit(steering, "/tag/x/page/3/", ["/2024/05/03/first-post-here/"], False)
    assert steering.link(SITE + "/tag/x/page/3/", SITE + "/tag/x/page/4/").prune == "paging"
    assert steering.link(SITE + "/", SITE + "/tag/y/page/2/").prune == ""  # another list


def test_a_request_queued_before_its_shape_turned_barren_is_pruned_when_fetched():
    steering = Steering("prune", shape_pages=2, probe_every=100)
    tags = [f"/topics/t{number}/" for number in range(6)]
    decisions, _ = visit(steering, "/", tags, False)  # every tag page queued at once
    assert not any(decision.prune for decision in decisions)
    for path in tags[:2]:
        assert steering.recheck(SITE + path, "listing") == ""
        visit(steering, path, [], False)
    assert [steering.recheck(SITE + path, "listing") for path in tags[2:]] == ["shape"] * 4
    assert steering.recheck(SITE + "/topics/t9/", "article") == ""  # an article link, never


def test_a_page_is_barren_only_once_its_new_links_were_answered():
    steering = Steering()
    visit(steering, "/tag/x/", ["/2024/05/03/a-long-post-title/"], False)
    assert "/tag/{term}/" not in steering.sites["example.org"].shapes  # not answered yet
    _, outcome = visit(steering, "/2024/05/03/a-long-post-title/", [], True)
    run = steering.sites["example.org"].shapes["/tag/{term}/"]
    assert run.pages == 1 and run.barren == 0 and outcome.barren == 0  # it found an article
    steering.fetched(SITE + "/tag/y/")
    steering.links(SITE + "/tag/y/", [(SITE + "/2024/05/04/another-long-title/", Anchor())])
    steering.outcome(SITE + "/tag/y/", False)
    steering.fetched(SITE + "/2024/05/04/another-long-title/")  # a 404: no items, teaches nothing
    steering.streamed(SITE + "/2024/05/04/another-long-title/")
    outcome = steering.outcome(SITE + "/2024/05/04/another-long-title/", False, judged=False)
    assert outcome.barren == 2 and run.barren == 1  # the 404, and the tag page that found only it


def test_observe_records_what_it_would_prune_and_counts_articles_among_them():
    steering = Steering("observe", shape_pages=1)
    visit(steering, "/topics/t0/", [], False)
    decision = steering.link(SITE + "/", SITE + "/topics/t1/")
    assert decision.prune == "shape" and not decision.probe
    _, outcome = visit(steering, "/topics/t1/", [], True)
    assert outcome.pruned_but_article and outcome.article


def test_the_outcome_waits_for_the_page_links():
    steering = Steering()
    steering.fetched(SITE + "/")
    assert steering.outcome(SITE + "/", False) is None
    steering.link(SITE + "/", SITE + "/2024/05/03/a-long-post-title/")
    outcome = steering.streamed(SITE + "/")
    assert outcome is not None and not outcome.barren  # it found a new article link


def test_memory_is_bounded():
    steering = Steering(max_sites=3, max_links=50)
    for number in range(20):
        site = f"https://site{number}.org"
        steering.fetched(site + "/")
        steering.links(site + "/", [(f"{site}/{n}/a-long-post-title/", Anchor()) for n in range(10)])
        steering.outcome(site + "/", False)
    assert len(steering.sites) == 3 and len(steering.seen) <= 50 and len(steering.pending) <= 50


def test_an_unknown_mode_is_refused():
    with pytest.raises(ValueError, match="mode"):
        Steering("sometimes")
