"""What site memory learned, readable: a site's counts, the URL shapes of its articles and listings,
its templates and furniture lines, as a line and a dict, the same from the in-process store and from
Redis; the crawl's summaries at close; and ``scrapy-bodytext sites`` against a real redis-server."""

from __future__ import annotations

import json

import pytest
from test_cli import run  # the command run in this process, its exit status and output
from test_redis import redis_url  # noqa: F401 - the fixture: a redis-server of its own
from test_sites import LEANING, result

from scrapy_bodytext.sites import SiteMemory
from scrapy_bodytext.sites.redis_memory import RedisSiteMemory
from scrapy_bodytext.sites.summary import (
    ShapeCount,
    crawl_summaries,
    learned_sites,
    memory_summaries,
    summarize_fields,
    summarize_site,
)

SITE = "a.example"
FURNITURE = "Share this post with a friend"
POSTS, TAGS, PAGES = 12, 4, 3


def crawl(memory: SiteMemory, site: str = SITE, posts: int = POSTS) -> None:
    """A site's posts, each closed by the same line, then its tag pages and its pages of posts, all
    judged with confidence; a service page the page judge is unsure of (it teaches nothing)."""
    for number in range(posts):
        body = f"The body of post {number}, its own words, long enough to be an article's text. " * 2
        text = f"First words of post {number}.\n{body}\n{FURNITURE}"
        memory.decide(f"https://{site}/news/post-number-{number}/", result(0.97, text=text))
    for number in range(TAGS):
        memory.decide(f"https://{site}/tag/topic-{number}/", result(0.03, template="list"))
    for number in range(2, 2 + PAGES):
        memory.decide(f"https://{site}/page/{number}/", result(0.03, template="list"))
    memory.decide(f"https://{site}/about/", result(0.6, template="page"))


def test_a_summary_counts_what_the_site_taught_by_shape_template_and_line() -> None:
    memory = SiteMemory(weights=LEANING)
    crawl(memory)
    summary = summarize_site(memory.store, SITE, weights=LEANING)
    assert (summary.site, summary.articles, summary.others) == (SITE, POSTS, TAGS + PAGES)
    assert summary.shapes.articles == (ShapeCount("/news/{slug}/", POSTS, 0),)
    assert summary.shapes.listings == (ShapeCount("/tag/{slug}/", 0, TAGS), ShapeCount("/page/{num}/", 0, PAGES))
    assert summary.coarse.articles == (ShapeCount("/{w}/{w}/", POSTS, TAGS),)  # the tags share it
    assert [t.key for t in summary.templates.articles] == ["post"]
    assert [(t.key, t.others) for t in summary.templates.listings] == [("list", TAGS + PAGES)]
    assert (summary.furniture_lines, summary.stored) == (1, POSTS)  # the closing line, on every post
    assert summary.line() == (
        f"{SITE}: 12 confident articles, 7 non-articles; article shapes: /news/{{slug}}/ 12; "
        "listing shapes: /tag/{slug}/ 4, /page/{num}/ 3; templates: 1 of articles (the first holds 100 %), "
        "1 of listings; furniture lines: 1 (of 12 articles counted)"
    )
    record = json.loads(json.dumps(summary.as_dict()))
    assert record["shapes"]["listings"] == [
        {"key": "/tag/{slug}/", "articles": 0, "others": 4},
        {"key": "/page/{num}/", "articles": 0, "others": 3},
    ]
    assert record["articles"] + record["others"] == sum(
        shape["articles"] + shape["others"] for kind in ("articles", "listings") for shape in record["shapes"][kind]
    )


def test_only_the_shapes_with_most_verdicts_are_shown_and_the_rest_counted() -> None:
    fields = {"A": 9, "N": 9, "sa:/a/{slug}/": 5, "sa:/b/{slug}/": 3, "sa:/c/{slug}/": 1}
    fields |= {"sn:/tag/{slug}/": 6, "sn:/page/{num}/": 2, "sn:/c/{slug}/": 1, "u:0011": "a|post|1"}
    summary = summarize_fields(SITE, fields, most=1, weights=LEANING)
    assert summary.shapes.articles == (ShapeCount("/a/{slug}/", 5, 0),) and summary.shapes.more_articles == 1
    assert summary.shapes.listings == (ShapeCount("/tag/{slug}/", 0, 6),) and summary.shapes.more_listings == 1
    assert summary.shapes.unsettled == 1  # /c/{slug}/: one article, one non-article
    assert "article shapes: /a/{slug}/ 5, +1 more; listing shapes: /tag/{slug}/ 6, +1 more; unsettled shapes: 1" in (
        summary.line()
    )
    mixed = summarize_fields(SITE, {"A": 7, "N": 2, "sa:/n/{slug}/": 7, "sn:/n/{slug}/": 2}, weights=LEANING)
    assert "article shapes: /n/{slug}/ 7 (2 non-articles)" in mixed.line()
    assert summarize_site(SiteMemory().store, "nowhere.example") is None
    with pytest.raises(ValueError, match="most"):
        summarize_fields(SITE, fields, most=-1)


def test_the_crawl_summaries_put_the_sites_with_most_verdicts_first_and_skip_the_unknown() -> None:
    memory = SiteMemory(weights=LEANING)
    crawl(memory, "small.example", posts=3)
    crawl(memory, "big.example", posts=12)
    seen = ["small.example", "unknown.example", "big.example", "small.example"]
    found = crawl_summaries(memory, seen, most=2)
    assert [summary.site for summary in found] == ["big.example", "small.example"]
    assert [summary.articles for summary in found] == [12, 3]
    assert [summary.site for summary in crawl_summaries(memory, seen, limit=1)] == ["big.example"]
    assert learned_sites(memory, seen) == ["big.example", "small.example"]
    assert [summary.site for summary in memory_summaries(memory.store)] == ["big.example", "small.example"]
    assert memory.store.site_names() == ["small.example", "big.example"]  # least recently learned first


# ------------------------------------------------------------------------------------ Redis, the command


@pytest.mark.redis
def test_redis_holds_the_summary_of_the_memory_in_process(redis_url):  # noqa: F811
    local, shared = SiteMemory(weights=LEANING), RedisSiteMemory(redis_url, prefix="test:summary", weights=LEANING)
    try:
        for memory in (local, shared):
            crawl(memory)
            crawl(memory, "b.example", posts=3)
        assert shared.store.site_names() == local.store.site_names() == [SITE, "b.example"]
        assert {name: str(value) for name, value in local.store.fields(SITE).items()} == shared.store.fields(SITE)
        assert crawl_summaries(shared, [SITE, "b.example"]) == crawl_summaries(local, [SITE, "b.example"])
        assert shared.store.fields("nowhere.example") == {}
    finally:
        shared.forget()
        shared.close()


@pytest.mark.redis
def test_the_sites_command_prints_what_a_shared_memory_learned(redis_url, capsys):  # noqa: F811
    prefix = "test:sites-command"
    memory = RedisSiteMemory(redis_url, prefix=prefix, weights=LEANING)
    try:
        crawl(memory)
        crawl(memory, "b.example", posts=3)
        code, out, err = run(capsys, "sites", "--redis-url", redis_url, "--prefix", prefix)
        assert (code, err) == (0, "")
        lines = out.splitlines()
        assert len(lines) == 2 and lines[0].startswith(f"{SITE}: 12 confident articles, 7 non-articles; ")
        assert lines[1].startswith("b.example: 3 confident articles")
        assert "article shapes: /news/{slug}/ 12; listing shapes: /tag/{slug}/ 4, /page/{num}/ 3" in lines[0]

        one = ("--site", "https://a.example/any/page/", "--json")  # a URL of the site
        code, out, err = run(capsys, "sites", "--redis-url", redis_url, "--prefix", prefix, *one)
        assert code == 0, err
        record = json.loads(out)
        assert record["prefix"] == prefix and [site["site"] for site in record["sites"]] == [SITE]
        assert record["sites"][0]["shapes"]["articles"] == [{"key": "/news/{slug}/", "articles": 12, "others": 0}]

        code, out, err = run(capsys, "sites", "--redis-url", redis_url, "--prefix", prefix, "--site", "c.example")
        assert (code, out) == (1, "")
        assert err == f"scrapy-bodytext sites: no site 'c.example' in the site memory at {redis_url} under {prefix}\n"

        code, out, err = run(capsys, "sites", "--redis-url", redis_url, "--prefix", "test:empty")
        assert (code, out) == (0, "") and "no site in the site memory" in err
    finally:
        memory.forget()
        memory.close()


def test_the_sites_command_says_in_one_line_when_redis_cannot_be_reached(capsys):
    from redis_server import free_port

    url = f"redis://:secret@127.0.0.1:{free_port()}/0"  # nothing listens there
    code, out, err = run(capsys, "sites", "--redis-url", url)
    assert (code, out) == (1, "")
    assert err.startswith(f"scrapy-bodytext sites: cannot reach Redis at redis://:***@{url.split('@')[1]}: ")
    assert err.count("\n") == 1 and "secret" not in err
    code, _, err = run(capsys, "sites", "--redis-url", "http://127.0.0.1/")
    assert code == 2 and "--redis-url http://127.0.0.1/: " in err
    code, _, err = run(capsys, "sites")
    assert code == 2 and "--redis-url" in err


def ipv6_loopback() -> bool:
    import socket

    try:
        with socket.socket(socket.AF_INET6) as probe:
            probe.bind(("::1", 0))
        return True
    except OSError:
        return False


@pytest.mark.redis
@pytest.mark.skipif(not ipv6_loopback(), reason="no IPv6 loopback (::1) on this machine")
def test_the_sites_command_reads_a_redis_on_an_ipv6_host_and_shows_its_brackets(tmp_path, capsys):
    from test_redis_faults import started_redis

    with started_redis(tmp_path / "redis", host="::1", password="secret") as server:
        memory = RedisSiteMemory(server.url, prefix="test:ipv6", weights=LEANING)
        crawl(memory, site="[::1]:9000")  # the site of https://[::1]:9000/...
        memory.close()
        shown = f"redis://:***@[::1]:{server.port}/0"
        code, out, err = run(
            capsys, "sites", "--redis-url", server.url, "--prefix", "test:ipv6", "--site", "[::1]:9000"
        )
        assert (code, err) == (0, "") and out.startswith("::1:9000: 12 confident articles, 7 non-articles; ")
        code, out, err = run(capsys, "sites", "--redis-url", server.url, "--prefix", "test:ipv6", "--json")
        assert code == 0 and json.loads(out)["redis_url"] == shown
        code, out, err = run(capsys, "sites", "--redis-url", server.url, "--prefix", "test:ipv6", "--site", "c.example")
        assert err == f"scrapy-bodytext sites: no site 'c.example' in the site memory at {shown} under test:ipv6\n"
        assert "secret" not in out + err


@pytest.mark.redis
def test_the_sites_command_reads_a_read_only_replica_through_a_reader_that_cannot_write(tmp_path, capsys):
    """The command reads through ``RedisSiteReader``, which has no way to write (a writable store's
    update would push the shared memory's sites past its bound): a read-only replica serves it."""
    from test_redis_faults import MAIN, read_only_replica, started_redis

    from scrapy_bodytext.sites.redis_memory import RedisSiteReader
    from scrapy_bodytext.stores import StoreUnavailable

    with started_redis(tmp_path / "main", options=MAIN) as main:
        memory = RedisSiteMemory(main.url, prefix="test:replica", weights=LEANING)
        crawl(memory)
        memory.close()
        with read_only_replica(tmp_path / "replica", main) as replica:
            code, out, err = run(capsys, "sites", "--redis-url", replica.url, "--prefix", "test:replica")
            assert (code, err) == (0, "") and out.startswith(f"{SITE}: 12 confident articles")
            reader = RedisSiteReader(replica.url, prefix="test:replica")
            assert not hasattr(reader, "update") and not hasattr(reader, "forget")
            assert reader.site_names() == [SITE] and len(reader) == 1 and reader.fields(SITE)
            replica.kill()
            for read in (lambda: reader.fields(SITE), reader.site_names):  # through the guard, as every call
                with pytest.raises(StoreUnavailable):
                    read()
            assert reader.guard.counts["failures"] == 2
            reader.close()


def test_a_local_site_is_summed_up_in_its_own_paths_with_counts_in_the_singular_where_one() -> None:
    """The pages of a ``file:`` crawl are one site read from a folder of this machine: its shapes are
    shown below that folder, never with the machine's path; one page is "1 non-article"."""
    memory = SiteMemory(weights=LEANING)
    root = "file:///home/someone/checkout/news_example/site"
    for number in range(3):
        body = f"The body of post {number}, its own words, long enough to be an article's text. " * 2
        memory.decide(f"{root}/article/post-number-{number}.html", result(0.97, text=body))
    memory.decide(f"{root}/tag/rivers.html", result(0.03, template="list"))
    summary = summarize_site(memory.store, "file://", weights=LEANING)
    line = summary.line()
    assert line.startswith("file://: 3 confident articles, 1 non-article; article shapes: /article/{slug}.html 3;")
    assert "home" not in line and "checkout" not in line and "{slug}/{slug}" not in line
    assert "(of 3 articles counted)" in line
    keys = [shape["key"] for kind in summary.as_dict()["shapes"].values() if isinstance(kind, list) for shape in kind]
    assert keys == ["/article/{slug}.html"]
