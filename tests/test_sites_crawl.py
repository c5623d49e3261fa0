"""Real crawls of a generated blog on 127.0.0.1 with the site memory on (its default): the listings the
page judge alone keeps are dropped, no article is dropped by the memory, waiting pages never stall a
crawl and every item is stored or dropped; two crawl processes sharing a real redis-server decide as
one, and a crawl started later reuses what they learned; bad settings stop the crawl with one line."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from blog_site import SERVICE, blog
from crawl_runner import ADDON, Crawl, run_at_once, run_crawl
from http_server import SiteServer
from test_redis import free_port, redis_url  # noqa: F401 - the fixture: a redis-server of its own
from test_startup import ADDON as CUSTOM_SETTINGS
from test_startup import lines_at, scrapy, write_runspider

PAGES, KINDS = blog(60)
ARTICLES = {path for path, kind in KINDS.items() if kind == "article"}
LISTINGS = {path for path, kind in KINDS.items() if kind in ("listing", "home")}
#: every path, in the order a reader of the blog meets them: the newest posts, then their listings
ORDER = sorted(PAGES, key=lambda path: (KINDS[path] != "article", path))
#: pages the page judge is unsure of (date archives, service pages): none teaches the site anything
UNSURE = [path for path in ORDER if path in SERVICE or (KINDS[path] == "listing" and path[1:5].isdigit())]
STAT_NAMES = (
    "judged",
    "overturned_to_article",
    "overturned_to_non_article",
    "waited",
    "waiting_max",
    "settled_while_waiting",
    "taught_while_waiting",
    "released_by_count",
    "released_by_time",
    "released_when_stalled",
    "released_on_close",
    "released_on_error",
    "decided_with_little_evidence",
    "sites_forgotten",
    "sites_remembered",
    "errors",
    "not_raised",
    "sites_learned",
)


@pytest.fixture(scope="module")
def server():
    with SiteServer(PAGES) as served:
        yield served


def path_of(url: str) -> str:
    return urlsplit(url).path


def crawl(folder, server, order: list[str] | None = None, host: str | None = None, **settings) -> Crawl:
    """The blog crawled from its home page, or the paths in ``order`` without following links."""
    folder.mkdir(exist_ok=True)
    base = server.base_url if host is None else server.base_url.replace("127.0.0.1", host)
    where = {"start": base + "/"}
    if order is not None:
        (folder / "urls.txt").write_text("\n".join(base + path for path in order))
        where = {"urls": str(folder / "urls.txt"), "follow": "0"}
    found = run_crawl(folder, settings={"ADDONS": ADDON, "BODYTEXT_WORKERS": 0, **settings}, **where)
    assert found.returncode == 0, found.log[-3000:]
    print(f"\n--- {folder.name}: {found.stored} stored, {found.dropped} dropped")
    print(json.dumps(found.stats_under("bodytext/sites"), sort_keys=True))
    return found


def nothing_lost(found: Crawl) -> None:
    """Every page's item (one per page) was stored or dropped, and nothing of a page is left held."""
    responses = found.stat("response_received_count")
    assert found.stored + found.dropped == responses == found.stat("bodytext/items/extracted")
    assert found.stat("bodytext/items/unreleased") == 0


def stored_paths(found: Crawl) -> set[str]:
    return {path_of(item["url"]) for item in found.items}


@pytest.fixture(scope="module")
def judged_alone(server, tmp_path_factory) -> Crawl:
    return crawl(tmp_path_factory.mktemp("alone"), server, ORDER, BODYTEXT_SITE_MEMORY=False)


def test_listings_the_page_judge_keeps_are_dropped_and_no_article_is(server, tmp_path, judged_alone):
    kept_alone = stored_paths(judged_alone) & LISTINGS
    assert len(kept_alone) >= 20, "the blog must hold listings a judge of one page keeps"
    found = crawl(tmp_path, server, ORDER)
    stored = stored_paths(found)
    assert ARTICLES <= stored, sorted(ARTICLES - stored)
    still_kept = kept_alone & stored
    print("listings kept by the page judge and by the site:", sorted(still_kept))
    # the memory's threshold drops none of its training sites' articles; leaving one site out it drops
    # 84.7 % of the non-articles (docs/site-memory.md): at least half of what the page judge keeps here
    assert len(still_kept) <= len(kept_alone) // 2
    overturned = found.stat("bodytext/sites/overturned_to_non_article")
    assert overturned == len(stored_paths(judged_alone) - stored) >= len(kept_alone) - len(still_kept)
    assert found.stat("bodytext/sites/judged") == found.stat("bodytext/pages/extracted")
    nothing_lost(found)
    # what the crawl learned, said once at its close: the posts' dated shape, the listings' shapes
    learned = re.findall(r"INFO: Site memory learned: (.*)", found.log)
    assert found.stat("bodytext/sites/sites_learned") == len(learned) == 1
    assert re.search(r"article shapes: /\{year\}/\{month\}/\{day\}/\{slug\}/ \d+", learned[0]), learned
    assert "/page/{num}/" in learned[0].split("listing shapes:")[1], learned  # the paginations


def broken_copy(path: str, how: str) -> bytes:
    """A post as a broken server sends it: cut after its headline (status 200, a whole HTTP body), or
    a page of the site's title alone."""
    body = PAGES[path][0]
    if how == "cut":
        return body[: body.index(b"</h1>") + len(b"</h1>")]
    return b"<!DOCTYPE html><html><head><title>Town Notes</title></head><body><h1>Town Notes</h1></body></html>"


def test_title_only_and_cut_pages_of_an_article_shape_stay_dropped_with_memory_on(tmp_path):
    """The site has learned its posts' dated shape; pages of that shape whose body is a title, or cut
    after the headline, are still dropped: site evidence never raises a page without article text."""
    posts = sorted(ARTICLES)
    broken = {f"{path}broken-{how}/": broken_copy(path, how) for path in posts[:4] for how in ("cut", "title")}
    pages = {**PAGES, **{path: (body, "text/html; charset=utf-8") for path, body in broken.items()}}
    with SiteServer(pages) as site:
        found = crawl(tmp_path, site, posts + sorted(broken), CONCURRENT_REQUESTS=1)
    stored = stored_paths(found)
    assert set(posts) <= stored
    assert not stored & set(broken), sorted(stored & set(broken))
    assert found.stat("bodytext/sites/not_raised") >= 1
    nothing_lost(found)


def test_the_site_evidence_is_written_when_asked_for(server, tmp_path):
    found = crawl(tmp_path, server, ORDER[:40], BODYTEXT_FIELDS=["default", "site_evidence"])
    assert found.items and all(isinstance(item["site_evidence"], dict) for item in found.items)
    assert all(item["site_evidence"] for item in found.items)
    default = crawl(tmp_path / "default", server, ORDER[:40])
    assert all(set(item) == {"url", "kind", "main_text", "article_probability"} for item in default.items)


def test_a_crawl_with_two_requests_at_once_and_waiting_finishes_and_loses_nothing(server, tmp_path):
    found = crawl(tmp_path, server, CONCURRENT_REQUESTS=2)  # the crawl ends on its own: run_crawl's timeout
    assert found.stat("response_received_count") == len(PAGES)
    assert found.stat("bodytext/sites/waited") > 0
    assert found.stat("bodytext/sites/waiting_max") <= 16
    nothing_lost(found)


def test_a_crawl_waiting_on_itself_releases_the_oldest_at_once(server, tmp_path):
    """Only pages the page judge is unsure of (date archives, service pages), each allowed to wait a
    minute: no page of the site ever settles them, so at the end every response the scraper holds is
    waiting, nothing downloads, and they are decided one after the other at once, not after the minute."""
    found = crawl(
        tmp_path,
        server,
        UNSURE,
        CONCURRENT_REQUESTS=2,
        BODYTEXT_SITE_WAIT_PAGES=1000,
        BODYTEXT_SITE_WAIT_SECONDS=60,
    )
    nothing_lost(found)
    assert found.stat("response_received_count") == len(UNSURE)
    released = found.stat("bodytext/sites/released_when_stalled")
    assert released > 0 and found.stat("bodytext/sites/released_by_time") == 0
    assert found.stat("bodytext/sites/waited") == (
        found.stat("bodytext/sites/settled_while_waiting") + released + found.stat("bodytext/sites/released_on_close")
    )
    assert found.stat("bodytext/sites/decided_with_little_evidence") >= released


def test_confident_pages_teach_while_they_wait_and_settle_each_other(server, tmp_path):
    """The posts first, one request at a time, room for all of them to wait: each post the page
    judge is sure of teaches its site while it waits, so once the site holds enough confident
    verdicts the waiting posts are settled by what they taught each other, none released by a bound."""
    found = crawl(tmp_path, server, ORDER, CONCURRENT_REQUESTS=1, BODYTEXT_SITE_WAIT_PAGES=1000)
    taught = found.stat("bodytext/sites/taught_while_waiting")
    settled = found.stat("bodytext/sites/settled_while_waiting")
    assert taught > 0 and settled > 0
    assert found.stat("bodytext/sites/released_by_count") == 0
    assert found.stat("bodytext/sites/waited") == (
        settled
        + found.stat("bodytext/sites/released_when_stalled")
        + found.stat("bodytext/sites/released_by_time")
        + found.stat("bodytext/sites/released_on_close")
    )
    assert ARTICLES <= stored_paths(found)
    nothing_lost(found)


def test_bounds_release_the_oldest_by_count_and_by_time(server, tmp_path):
    by_count = crawl(tmp_path / "count", server, ORDER[::-1], CONCURRENT_REQUESTS=4, BODYTEXT_SITE_WAIT_PAGES=1)
    assert by_count.stat("bodytext/sites/waiting_max") == 1
    assert by_count.stat("bodytext/sites/released_by_count") > 0
    nothing_lost(by_count)
    by_time = crawl(tmp_path / "time", server, ORDER[::-1], CONCURRENT_REQUESTS=4, BODYTEXT_SITE_WAIT_SECONDS=0.01)
    assert by_time.stat("bodytext/sites/released_by_time") > 0
    assert by_time.stat("bodytext/sites/released_by_count") == 0
    nothing_lost(by_time)


def test_waiting_pages_are_decided_when_the_crawl_closes_early(server, tmp_path):
    """Only unsure pages, waiting a minute each: the first one released (the crawl waits on itself)
    closes the crawl (one item is enough), and the pages still waiting are decided as it closes."""
    found = crawl(
        tmp_path,
        server,
        UNSURE,
        CONCURRENT_REQUESTS=2,
        CLOSESPIDER_ITEMCOUNT=1,
        BODYTEXT_DROP_NON_ARTICLES=False,  # every item is stored: the first one released closes the crawl
        BODYTEXT_SITE_WAIT_PAGES=1000,
        BODYTEXT_SITE_WAIT_SECONDS=60,
    )
    assert "closespider_itemcount" in found.log
    assert found.stat("bodytext/sites/released_on_close") > 0
    assert found.stat("bodytext/sites/waited") == (
        found.stat("bodytext/sites/released_when_stalled") + found.stat("bodytext/sites/released_on_close")
    )
    assert found.stored + found.dropped == found.stat("bodytext/items/extracted")


def test_more_pages_of_one_site_wait_than_the_recursion_limit_and_each_gets_its_verdict(tmp_path):
    """1,500 copies of a page the judge is unsure of wait (BODYTEXT_SITE_WAIT_PAGES raised to 1,500, more
    than Python's recursion limit), then the site's posts come and teach it until it settles them:
    every page is decided, one after another, without a WARNING."""
    unsure = PAGES["/tag/ferry/page/18/"]  # a listing of one excerpt: article text, the judge unsure
    many = {f"/tag/ferry/page/{number}/": unsure for number in range(100, 1600)}
    posts = sorted(ARTICLES)[:30]
    with SiteServer({**many, **{path: PAGES[path] for path in posts}}) as served:
        found = crawl(
            tmp_path,
            served,
            [*many, *posts],
            BODYTEXT_SITE_WAIT_PAGES=1500,
            BODYTEXT_SITE_WAIT_SECONDS=600,
        )
    assert found.stat("bodytext/sites/waiting_max") > sys.getrecursionlimit()
    assert found.stat("bodytext/sites/settled_while_waiting") > sys.getrecursionlimit()
    assert found.stat("bodytext/sites/errors") == 0
    assert " WARNING: " not in found.log and " ERROR: " not in found.log, found.log[-3000:]
    assert found.stat("bodytext/sites/judged") == len(many) + len(posts)
    nothing_lost(found)


def test_no_waiting_gives_the_same_results_for_the_same_pages_in_the_same_order(server, tmp_path):
    settings = {"CONCURRENT_REQUESTS": 1, "BODYTEXT_SITE_WAIT_PAGES": 0}
    first = crawl(tmp_path / "first", server, ORDER, **settings)
    second = crawl(tmp_path / "second", server, ORDER, **settings)
    assert first.items == second.items
    assert first.stat("bodytext/sites/waited") == 0
    assert first.stats_under("bodytext/sites") == second.stats_under("bodytext/sites")


def test_a_small_memory_forgets_the_oldest_site(server, tmp_path):
    """The blog served as two sites (127.0.0.1 and localhost), a memory of one site."""
    order = [server.base_url + path for path in ORDER]
    order += [url.replace("127.0.0.1", "localhost") for url in order]
    (tmp_path / "urls.txt").write_text("\n".join(order))
    found = run_crawl(
        tmp_path,
        settings={"ADDONS": ADDON, "BODYTEXT_WORKERS": 0, "BODYTEXT_SITE_MEMORY_SITES": 1},
        urls=str(tmp_path / "urls.txt"),
        follow="0",
    )
    assert found.returncode == 0, found.log[-3000:]
    assert found.stat("bodytext/sites/sites_forgotten") >= 1
    assert found.stat("bodytext/sites/sites_remembered") == 1


def test_an_unreachable_redis_leaves_each_page_its_own_verdict(server, tmp_path, judged_alone):
    found = crawl(tmp_path, server, ORDER, BODYTEXT_SITE_MEMORY_REDIS_URL=f"redis://127.0.0.1:{free_port()}/0")
    assert found.stat("bodytext/sites/errors") >= 1
    assert found.log.count("Site memory not reachable at the start, pages keep their own verdicts") == 1
    assert stored_paths(found) == stored_paths(judged_alone)
    assert found.stat("bodytext/sites/judged") == 0
    # the outage is said once (and once more at the close), never once per page
    assert found.stat("bodytext/sites/redis/outages") == 1
    assert found.log.count("WARNING: site memory in Redis at") == 2
    assert "Site memory failed" not in found.log
    nothing_lost(found)


@pytest.mark.redis
def test_two_crawls_sharing_redis_decide_as_one(server, tmp_path, redis_url, judged_alone):  # noqa: F811
    """Two processes sharing a memory in Redis decide like one crawl: every article stored, none decided
    otherwise, and the listings the page judge alone keeps dropped as one crawl drops them. Which
    listings near the threshold fall which way depends on the order the pages meet the memory (two
    processes interleave as their timing has it: docs/site-memory.md says how much order matters
    on this blog), so the count of such listings is printed, not bounded."""
    settings = {"BODYTEXT_SITE_MEMORY_REDIS_URL": redis_url, "BODYTEXT_SITE_MEMORY_REDIS_PREFIX": "crawl-test:shared"}
    alone = crawl(tmp_path / "one", server, ORDER)
    halves = {"a": ORDER[0::2], "b": ORDER[1::2]}
    crawls = run_at_once(
        {name: lambda name=name: crawl(tmp_path / name, server, halves[name], **settings) for name in halves}
    )
    assert all(isinstance(found, Crawl) for found in crawls.values()), crawls
    shared = stored_paths(crawls["a"]) | stored_paths(crawls["b"])
    assert ARTICLES <= shared
    differ = shared ^ stored_paths(alone)
    print(f"pages decided otherwise than by one crawl: {len(differ)} of {len(ORDER)}", sorted(differ))
    assert not differ & ARTICLES, sorted(differ)
    kept_alone = stored_paths(judged_alone) & LISTINGS
    for found in (alone, shared):
        kept = (stored_paths(found) if isinstance(found, Crawl) else found) & kept_alone
        assert len(kept) <= len(kept_alone) // 2, sorted(kept)


@pytest.mark.redis
def test_a_restarted_crawl_judges_its_first_page_with_what_redis_kept(server, tmp_path, redis_url):  # noqa: F811
    settings = {"BODYTEXT_SITE_MEMORY_REDIS_URL": redis_url, "BODYTEXT_SITE_MEMORY_REDIS_PREFIX": "crawl-test:kept"}
    first = crawl(tmp_path / "first", server, ORDER, **settings)
    learned = sum(first.items[-1]["site_evidence"]["counts"]["site"]) if "site_evidence" in first.items[-1] else None
    print("learned by the first crawl (its last item's evidence):", learned)
    # a crawl started later, of the listings only, judges its first page with what the first learned
    listings_only = sorted(LISTINGS)
    # (no waiting: a page that waits is judged again with what later pages taught, so its item's evidence
    # would not be its first judgement's)
    one_at_a_time = {
        "CONCURRENT_REQUESTS": 1,
        "BODYTEXT_FIELDS": ["all"],
        "BODYTEXT_DROP_NON_ARTICLES": False,
        "BODYTEXT_SITE_WAIT_PAGES": 0,
    }
    fresh = crawl(tmp_path / "fresh", server, listings_only, **one_at_a_time)
    restarted = crawl(tmp_path / "restarted", server, listings_only, **one_at_a_time, **settings)
    print("first pages' evidence:", json.dumps([found.items[0]["site_evidence"] for found in (fresh, restarted)]))
    assert sum(fresh.items[0]["site_evidence"]["counts"]["site"]) == 0
    assert all(sum(item["site_evidence"]["counts"]["site"]) > 0 for item in restarted.items)


def test_every_stat_is_documented_and_the_code_counts_no_other():
    package = Path(__file__).resolve().parent.parent / "scrapy_bodytext"
    code = (package / "plugin" / "sites.py").read_text() + (package / "sites" / "waiting.py").read_text()
    counted = set(re.findall(r'(?:count|_value)\("(\w+)"', code))
    counted |= set(re.findall(r'"(released_\w+)"', code)) | set(re.findall(r'"(settled_\w+)"', code))
    counted |= {"overturned_to_article", "overturned_to_non_article"}  # counted as one or the other
    assert counted <= set(STAT_NAMES), counted - set(STAT_NAMES)
    docs = (package.parent / "docs" / "plugin.md").read_text()
    for name in STAT_NAMES:
        assert f"`bodytext/sites/{name}`" in docs or f"`.../{name}`" in docs, name


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("BODYTEXT_SITE_MEMORY", "maybe", "expected True or False"),
        ("BODYTEXT_SITE_MEMORY_SITES", "0", "expected an integer >= 1"),
        ("BODYTEXT_SITE_MEMORY_REDIS_URL", "http://127.0.0.1/", "expected a Redis URL"),
        ("BODYTEXT_SITE_MEMORY_REDIS_PREFIX", "two words", "expected a Redis key prefix without spaces"),
        ("BODYTEXT_SITE_WAIT_PAGES", "-1", "expected an integer >= 0"),
        ("BODYTEXT_SITE_WAIT_SECONDS", "0", "expected a number > 0.0"),
    ],
)
def test_a_bad_setting_stops_the_crawl_with_one_error_line(server, tmp_path, name, value, message):
    status, output = scrapy(
        tmp_path, write_runspider(tmp_path, CUSTOM_SETTINGS), "-a", f"start={server.url('/')}", "-s", f"{name}={value}"
    )
    assert status == 1, output[-3000:]
    errors = lines_at("ERROR", output) + lines_at("CRITICAL", output)
    assert len(errors) == 1, output[-3000:]
    assert f"Crawl stopped by an invalid setting: {name}: {message}" in errors[0]
    assert "Traceback" not in output
