"""Real crawls of a news site on 127.0.0.1 that publishes each story five times (tracking-parameter,
AMP and updated copies, a wire partner's version): the first stored copy of each story is kept as it
is and every later one names it (``duplicate_of``), or is dropped with the drop setting; two crawl
processes sharing a real redis-server store each story exactly once between them, and a third crawl
started later still knows them."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from urllib.parse import urlsplit

import pytest
from crawl_runner import ADDON, Crawl, run_at_once, run_crawl
from duplicate_site import site
from http_server import SiteServer
from test_redis import redis_url  # noqa: F401 - the fixture: a redis-server of its own

SERVED, COPIES = site()
STORIES = sorted({slug for slug, _ in COPIES.values()})
#: one copy whose page fails (an unknown extractor for it): dropped, it must never count as a first copy
FAILING = "/amp/news/ferry.html"


@pytest.fixture(scope="module")
def server():
    with SiteServer(SERVED) as served:
        yield served


def new_folder(folder):
    folder.mkdir()
    return folder


def story_of(url: str) -> str:
    parts = urlsplit(url)
    return COPIES[parts.path + (f"?{parts.query}" if parts.query else "")][0]


def crawl(folder, server, order: list[str] | None = None, **settings) -> Crawl:
    """The site crawled from its index page, or the copies in ``order`` (paths), without following links."""
    where = {"start": server.url("/index.html")}
    if order is not None:
        (folder / "urls.txt").write_text("\n".join(server.url(path) for path in order))
        where = {"urls": str(folder / "urls.txt"), "follow": "0"}
    found = run_crawl(
        folder,
        settings={"ADDONS": ADDON, "BODYTEXT_WORKERS": 0, **settings},
        meta=json.dumps({FAILING: {"bodytext_extractor": "no-such-method"}}),
        **where,
    )
    assert found.returncode == 0, found.log[-3000:]
    print(f"\n--- {folder.name}: {found.stored} stored, {found.dropped} dropped")
    print(json.dumps(found.stats_under("bodytext/duplicates"), sort_keys=True))
    for line in found.log.splitlines():
        if "Duplicate (" in line:
            print(line.split("] ", 1)[-1])
    return found


def test_later_copies_name_the_first_stored_copy(server, tmp_path):
    found = crawl(tmp_path, server)
    by_story = defaultdict(list)
    for item in found.items:
        by_story[story_of(item["url"])].append(item)
        print(item["url"].split("/", 3)[-1], "->", item.get("duplicate_of"), item.get("duplicate_similarity"))
    assert sorted(by_story) == STORIES
    for story, items in by_story.items():
        first = [item for item in items if "duplicate_of" not in item]
        assert len(first) == 1, (story, items)
        assert len(items) == (4 if story == "ferry" else 5)
        for item in items:
            if item is not first[0]:
                assert item["duplicate_of"] == first[0]["url"]
                assert 0.5 <= item["duplicate_similarity"] <= 1.0
    assert FAILING not in {urlsplit(item["url"]).path for item in found.items}
    assert found.stat("bodytext/duplicates/indexed") == len(STORIES)
    assert found.stat("bodytext/duplicates/flagged") == len(found.items) - len(STORIES)
    assert found.stat("bodytext/duplicates/dropped") == 0


def test_the_drop_setting_stores_each_story_once_and_reviews_the_rest(server, tmp_path):
    review = tmp_path / "review.jsonl"
    found = crawl(tmp_path, server, BODYTEXT_DUPLICATES="drop", BODYTEXT_REJECTED_FEED=str(review))
    assert sorted(story_of(item["url"]) for item in found.items) == STORIES
    copies = len(COPIES) - 1 - len(STORIES)  # every copy but the first of each story, and the failing one
    assert found.stat("bodytext/duplicates/dropped") == copies
    assert found.stat("item_dropped_reasons_count/DuplicateArticle") == copies
    rejected = [json.loads(line) for line in review.read_text().splitlines()]
    duplicates = [record for record in rejected if record["reason"] == "duplicate"]
    assert len(duplicates) == copies
    stored = {story_of(item["url"]): item["url"] for item in found.items}
    for record in duplicates:
        assert record["detail"].startswith(f"duplicate of {stored[story_of(record['url'])]} (similarity ")
    assert found.log.count("Duplicate (similarity ") == copies


@pytest.mark.redis
def test_two_crawls_sharing_redis_store_each_story_once(server, tmp_path, redis_url):  # noqa: F811
    settings = {
        "BODYTEXT_DUPLICATES": "drop",
        "BODYTEXT_DUPLICATE_REDIS_URL": redis_url,
        "BODYTEXT_DUPLICATE_REDIS_PREFIX": "crawl-test:duplicates",
    }
    orders = {"a": list(COPIES), "b": list(reversed(COPIES))}  # both crawl every copy, from either end
    crawls = run_at_once(
        {
            name: lambda name=name: crawl(new_folder(tmp_path / name), server, orders[name], **settings)
            for name in orders
        }
    )
    both = [crawls["a"], crawls["b"]]
    assert all(isinstance(found, Crawl) for found in both), crawls
    stored = [item["url"] for found in both for item in found.items]
    print("stored by a:", sorted(item["url"].split("/", 3)[-1] for item in crawls["a"].items))
    print("stored by b:", sorted(item["url"].split("/", 3)[-1] for item in crawls["b"].items))
    assert sorted(Counter(story_of(url) for url in stored).items()) == [(story, 1) for story in STORIES]
    assert crawls["a"].stat("bodytext/duplicates/indexed") + crawls["b"].stat("bodytext/duplicates/indexed") == 6

    restarted = tmp_path / "restarted"
    restarted.mkdir()
    again = crawl(restarted, server, **settings)
    assert again.items == []  # every copy, the first ones too, was stored before the restart
    assert again.stat("bodytext/duplicates/indexed") == 0
    assert again.stat("bodytext/duplicates/dropped") == len(COPIES) - 1  # all but the failing page
