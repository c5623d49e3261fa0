"""Real crawls of a generated blog on 127.0.0.1 from its home page, steered (``BODYTEXT_STEER``):
observe changes no request and no stored item, prioritize stores what an unsteered crawl stores and
fetches articles sooner, prune stores every post and fetches fewer other pages; every item is stored
or dropped, and the stats say what the steering did."""

from __future__ import annotations

import json
from urllib.parse import urlsplit

import pytest
from blog_site import blog
from crawl_runner import ADDON, Crawl, run_crawl
from http_server import SiteServer

PAGES, KINDS = blog(60)
ARTICLES = {path for path, kind in KINDS.items() if kind == "article"}


@pytest.fixture(scope="module")
def server():
    with SiteServer(PAGES) as served:
        yield served


def crawl(folder, server, **settings) -> Crawl:
    folder.mkdir(exist_ok=True)
    found = run_crawl(
        folder,
        settings={"ADDONS": ADDON, "BODYTEXT_WORKERS": 0, "CONCURRENT_REQUESTS": 1, **settings},
        start=server.base_url + "/",
    )
    assert found.returncode == 0, found.log[-3000:]
    print(f"\n--- {folder.name}: {found.stored} stored, {found.dropped} dropped")
    print(json.dumps(found.stats_under("bodytext/steer"), sort_keys=True))
    nothing_lost(found)
    return found


def nothing_lost(found: Crawl) -> None:
    """Every page's item (one per page) was stored or dropped."""
    responses = found.stat("response_received_count")
    assert found.stored + found.dropped == responses == found.stat("bodytext/items/extracted")


def stored(found: Crawl) -> set[str]:
    return {urlsplit(item["url"]).path for item in found.items}


def fetched_non_articles(found: Crawl) -> int:
    return found.stat("response_received_count") - len(stored(found) & ARTICLES)


@pytest.fixture(scope="module")
def alone(server, tmp_path_factory) -> dict[str, Crawl]:
    """Each mode with the site memory off: every page's verdict its own, whatever the order."""
    return {
        mode: crawl(tmp_path_factory.mktemp(f"alone-{mode}"), server, BODYTEXT_STEER=mode, BODYTEXT_SITE_MEMORY=False)
        for mode in ("off", "observe", "prioritize")
    }


def test_observe_changes_no_request_and_no_stored_item(alone):
    off, observe = alone["off"], alone["observe"]
    assert off.stats_under("bodytext/steer") == {}
    assert stored(observe) == stored(off)
    assert observe.stat("response_received_count") == off.stat("response_received_count")
    # what prune would have dropped is counted, and the links got their roles
    assert sum(observe.stats_under("bodytext/steer/pruned/").values()) > 0
    assert observe.stat("bodytext/steer/links/article") >= len(ARTICLES) - 1  # the home page's own link
    assert observe.stat("bodytext/steer/pages") == observe.stat("response_received_count")
    # pages it would have pruned that were stored (here listings of one whole post, which the page
    # judge alone keeps): counted, never more than it would have pruned
    shadow = observe.stat("bodytext/steer/shadow/pruned_but_article")
    assert shadow <= sum(observe.stats_under("bodytext/steer/pruned/").values())


def test_prioritize_stores_what_off_stores_and_fetches_articles_sooner(alone):
    off, ahead = alone["off"], alone["prioritize"]
    assert stored(ahead) == stored(off)
    assert ahead.stat("response_received_count") == off.stat("response_received_count")
    assert ahead.stat("bodytext/steer/pages_per_article") > 0

    def requests_to_articles(found: Crawl, share: float) -> int:
        order = [urlsplit(item["url"]).path for item in found.items]  # stored in fetch order (one at a time)
        wanted = share * len(ARTICLES)
        seen = 0
        for number, path in enumerate(order, 1):
            seen += path in ARTICLES
            if seen >= wanted:
                return number
        return len(order)

    assert requests_to_articles(ahead, 0.9) < requests_to_articles(off, 0.9)


def test_prune_stores_every_post_and_fetches_fewer_other_pages(server, tmp_path, alone):
    found = crawl(tmp_path, server, BODYTEXT_STEER="prune")
    assert ARTICLES <= stored(found), sorted(ARTICLES - stored(found))
    assert fetched_non_articles(found) < fetched_non_articles(alone["off"])
    assert sum(found.stats_under("bodytext/steer/pruned/").values()) > 0
    assert found.stat("bodytext/steer/wasted_pages") < found.stat("bodytext/steer/pages")


def test_a_bad_steer_setting_stops_the_crawl(server, tmp_path):
    found = run_crawl(tmp_path, settings={"ADDONS": ADDON, "BODYTEXT_STEER": "sometimes"}, start=server.base_url + "/")
    assert "BODYTEXT_STEER" in found.log and "sometimes" in found.log
    assert found.stat("response_received_count") == 0
