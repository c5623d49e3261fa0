"""Site memory: URL shapes, site keys, the bounded store, a page never counting towards itself,
confident mistakes not teaching, determinism, the Redis store shared by processes and kept across
restarts, furniture lines, and the front doors (extract(), the command line) using it."""

from __future__ import annotations

import itertools
import json
import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest
import redis
from site_blog import FURNITURE, HOST, build_blog
from test_redis import redis_url  # noqa: F401 - the fixture: a redis-server of its own

from scrapy_bodytext import extract
from scrapy_bodytext.result import ExtractionResult
from scrapy_bodytext.sites import SiteMemory, Weights, coarse_shape, site_key, url_shape
from scrapy_bodytext.sites.redis_memory import RedisSiteMemory

ROOT = Path(__file__).resolve().parent.parent
#: a combination that leans on the site: what the weights file holds in kind, fixed here so that the
#: tests do not follow each refit
LEANING = Weights(
    bias=-1.0,
    weights={"page_logit": 1.0, "shape_articles": 1.5, "novel_shape": -1.0, "article_links": -1.0},
    threshold=0.5,
)


#: a post's main text: article length (site evidence never raises a page with less than MIN_BODY_CHARS)
POST_TEXT = (
    "A paragraph of the post, long enough to be an article's text: it tells what happened, where and when, "
    "and what the people involved said about it afterwards."
)


#: numbers each page's text apart: pages sharing one text would make it their site's furniture
PAGE_NUMBERS = itertools.count()


def result(probability: float, template: str = "post", links: tuple[str, ...] = (), text: str = "") -> ExtractionResult:
    return ExtractionResult(
        text or f"{POST_TEXT} (page {next(PAGE_NUMBERS)})",
        probability,
        probability >= 0.5,
        "bodytext",
        page_type="article" if probability >= 0.5 else "listing",
        template=template,
        links=links,
    )


# ------------------------------------------------------------------------------------ shapes, keys
@pytest.mark.parametrize(
    ("url", "shape"),
    [
        ("https://a.example/2021/03/07/a-long-post-title/", "/{year}/{month}/{day}/{slug}/"),
        ("https://a.example/2021/03/", "/{year}/{month}/"),
        ("https://a.example/page/12/", "/page/{num}/"),
        ("https://a.example/blog/hello.world/", "/blog/{slug}/"),  # a dotted slug's folder: a slug
        ("https://a.example/blog/release-2.1/", "/blog/{slug}/"),
        ("https://a.example/notes/readme.html", "/notes/readme.html"),  # a file keeps its extension
        ("https://a.example/blog/page3/", "/blog/page{num}/"),
        ("https://a.example/post/5f3a9b2c11d0/", "/post/{id}/"),
        ("https://a.example/notes/2021-03-07/", "/notes/{date}/"),
        ("https://a.example/tag/privacy/", "/tag/privacy/"),
        ("https://a.example/posts/hello-world.html", "/posts/{slug}.html"),
        ("https://a.example/?p=123", "/?p"),
    ],
)
def test_url_shapes_abstract_numbers_dates_ids_and_slugs_and_keep_fixed_words(url: str, shape: str) -> None:
    assert url_shape(url) == shape


def test_a_one_dash_slug_and_a_many_dash_slug_share_a_shape() -> None:
    assert url_shape("https://a.example/news/short-one/") == url_shape(
        "https://a.example/news/a-much-longer-slug-here/"
    )


def test_the_coarse_shape_joins_sections_and_one_word_slugs_but_not_lists() -> None:
    post = coarse_shape(url_shape("https://a.example/news/a-post/"))
    assert post == coarse_shape(url_shape("https://a.example/events/another-post/"))
    assert coarse_shape(url_shape("https://a.example/accessibility/")) == coarse_shape(
        url_shape("https://a.example/a-b/")
    )
    assert coarse_shape(url_shape("https://a.example/news/page/2/")) != post


@pytest.mark.parametrize(
    ("url", "key"),
    [
        ("https://www.example.com/a", "example.com"),
        ("https://news.example.co.uk/a", "example.co.uk"),
        ("https://someone.github.io/post/", "someone.github.io"),
        ("http://127.0.0.1:8080/x", "127.0.0.1:8080"),
        ("http://[::1]:9000/x", "::1:9000"),
        ("http://localhost:8000/x", "localhost:8000"),
        ("file:///srv/mirror/news/2024/a-post.html", "file://"),
        ("FILE:///C:/mirror/index.html", "file://"),
        ("not a url", ""),
    ],
)
def test_sites_key_by_registrable_domain_and_ip_hosts_by_host_and_port(url: str, key: str) -> None:
    assert site_key(url) == key


# ------------------------------------------------------------------------------------ the memory
def teach(memory: SiteMemory, site: str, posts: int, first: int = 0) -> None:
    for number in range(first, first + posts):
        memory.decide(f"https://{site}/news/post-number-{number}/", result(0.97))


def test_memory_is_bounded_and_forgets_the_oldest_site_first() -> None:
    memory = SiteMemory(max_sites=2, weights=LEANING)
    for site in ("one.example", "two.example", "three.example"):
        teach(memory, site, 3)
    counts = lambda site: memory.judge(f"https://{site}/news/a-new-post/", result(0.6)).evidence["counts"]["site"]  # noqa: E731
    assert counts("one.example") == [0, 0]
    assert counts("two.example") == [3, 0] and counts("three.example") == [3, 0]
    teach(memory, "two.example", 1, first=3)  # learned last: now the newest, three.example the oldest
    teach(memory, "four.example", 1)
    assert counts("three.example") == [0, 0] and counts("two.example") == [4, 0]


def test_a_page_never_counts_towards_its_own_decision() -> None:
    memory = SiteMemory(weights=LEANING)
    teach(memory, "a.example", 4)
    page, url = result(0.95), "https://a.example/news/the-page-itself/"
    before = memory.decide(url, page)
    assert before.evidence["counts"]["shape"] == [4, 0]
    again = memory.decide(url, page)  # learned now: its own verdict is taken back out
    assert again.evidence["counts"] == before.evidence["counts"]
    assert again.probability == before.probability
    assert memory.judge("https://a.example/news/another-post/", page).evidence["counts"]["shape"] == [5, 0]


def test_site_evidence_overturns_a_fairly_confident_page_and_says_why() -> None:
    memory = SiteMemory(weights=LEANING)
    teach(memory, "a.example", 30)
    listing = memory.judge("https://a.example/topics/privacy/", result(0.8, template="list"))
    assert not listing.is_article and listing.probability < 0.5
    assert "none of the site's 30 confident articles has its URL shape" in listing.evidence["why"]
    post = memory.judge("https://a.example/news/yet-another-post/", result(0.4))
    assert post.is_article and post.probability > 0.9


def test_a_site_the_memory_knows_nothing_of_leaves_the_pages_own_verdict() -> None:
    """The absence of evidence is no evidence: with the shipped weights (whatever their bias) a page
    of an unknown site keeps its own probability, and the site's weight grows with what it taught."""
    for probability in (0.05, 0.3, 0.6, 0.934, 0.99):
        verdict = SiteMemory().judge("https://unknown.example/2024/05/a-post/", result(probability))
        assert verdict.probability == pytest.approx(probability)
        assert verdict.is_article == (probability >= 0.5)
    memory = SiteMemory(weights=LEANING)
    moved, done = [], 0
    for taught in (0, 5, 10, 30):
        teach(memory, "b.example", taught - done, first=done)
        done = taught
        listing = memory.judge("https://b.example/topics/privacy/", result(0.8, template="list"))
        moved.append(listing.probability)
    assert moved[0] == pytest.approx(0.8) and moved[0] > moved[1] > moved[2] >= moved[3]


def test_only_confident_verdicts_teach_and_uncertain_pages_wait_for_evidence() -> None:
    memory = SiteMemory(weights=LEANING)
    verdict = memory.decide("https://a.example/news/unsure-post/", result(0.6))
    assert not verdict.settled  # uncertain and nothing known of its site
    assert memory.judge("https://a.example/news/next/", result(0.6)).evidence["counts"]["site"] == [0, 0]
    teach(memory, "a.example", LEANING.min_evidence)
    assert memory.judge("https://a.example/news/next/", result(0.6)).settled


def test_confident_mistakes_do_not_teach() -> None:
    """A page judged an article with confidence does not teach when its selection links densely to
    many pages of its own site (a list of posts); a page judged a non-article with confidence does
    not teach when its site's evidence says otherwise."""
    memory = SiteMemory(weights=LEANING)
    links = tuple(f"https://a.example/news/post-{n}/" for n in range(LEANING.teaching_links))
    listing = result(0.95, template="list", links=links)
    assert not memory.learn("https://a.example/", listing, memory.judge("https://a.example/", listing))
    assert memory.judge("https://a.example/", listing).evidence["counts"]["site"] == [0, 0]
    long_post = result(0.95, links=links, text="Words of a long post. " * 300)  # links, but sparse: a post
    assert memory.learn("https://a.example/news/a-long-post/", long_post, memory.judge("https://a.example/", long_post))
    teach(memory, "a.example", 30)
    doubted = result(0.05)
    verdict = memory.judge("https://a.example/news/a-short-post/", doubted)
    assert verdict.probability >= LEANING.agreement
    assert not memory.learn("https://a.example/news/a-short-post/", doubted, verdict)
    assert memory.judge("https://a.example/news/next-post/", doubted).evidence["counts"]["shape"] == [31, 0]


def test_the_same_pages_in_the_same_order_give_the_same_verdicts() -> None:
    pages = [(p.url, extract(p.html.encode(), url=p.url)) for p in build_blog()]
    runs = []
    for _ in range(2):
        memory = SiteMemory()
        runs.append([memory.decide(url, found) for url, found in pages])
    assert runs[0] == runs[1]


# ------------------------------------------------------------------------------------ results
def test_the_default_method_gives_a_template_and_the_selections_links() -> None:
    pages = build_blog()
    found = {p.url: extract(p.html.encode(), url=p.url) for p in pages}
    posts = [found[p.url] for p in pages if p.is_article]
    lists = [found[p.url] for p in pages if not p.is_article]
    assert len({r.template for r in posts}) == 1 and posts[0].template
    assert not {r.template for r in posts} & {r.template for r in lists}
    home = found[f"{HOST}/"]
    assert home.links and all(link.startswith(f"{HOST}/2024/") for link in home.links)
    again = pickle.loads(pickle.dumps(home))
    assert (again.template, again.links) == (home.template, home.links)
    assert "template" not in home.as_dict() and "links" not in home.as_dict()
    assert extract(pages[0].html.encode(), extractor="bte", url=pages[0].url).template == ""


def test_extract_with_memory_takes_the_sites_furniture_out_of_later_posts() -> None:
    memory = SiteMemory()
    pages = build_blog()
    outcomes = [(p, extract(p.html.encode(), url=p.url, memory=memory)) for p in pages]
    posts = [found for p, found in outcomes if p.is_article]
    assert all(line in posts[0].text for line in FURNITURE)  # nothing known yet
    assert not any(line in found.text for found in posts[-10:] for line in FURNITURE)
    assert all(found.debug["site_evidence"]["site"] == "example.org" for _, found in outcomes)
    assert extract(pages[1].html.encode(), url=pages[1].url).text.count(FURNITURE[0]) == 1  # without: kept


def test_a_recurring_line_inside_article_prose_is_kept() -> None:
    memory = SiteMemory(weights=LEANING)
    line = "A line every post carries."
    for number in range(LEANING.boilerplate_count + 2):
        text = f"{line}\nOwn words {number} of this post. {POST_TEXT}\nMore of its own words {number}."
        memory.decide(f"https://a.example/news/post-{number}/", result(0.97, text=text))
    text = "First words of the new post.\nA line every post carries.\nLast words of the new post."
    assert memory.strip_boilerplate("https://a.example/news/new-post/", text) == text
    edge = "A line every post carries.\nFirst words of the new post.\nLast words of the new post."
    assert memory.strip_boilerplate("https://a.example/news/new-post/", edge) == edge.split("\n", 1)[1]


# ------------------------------------------------------------------------------------ Redis
SHARED_RUN = """
import json, pickle, sys
from scrapy_bodytext.sites.redis_memory import RedisSiteMemory
url, prefix, path = sys.argv[1:4]
pages = pickle.load(open(path, "rb"))
memory = RedisSiteMemory(url, prefix=prefix)
print(json.dumps([memory.decide(u, r).probability for u, r in pages]))
"""


@pytest.mark.redis
def test_two_processes_sharing_redis_give_the_verdicts_of_one_memory(redis_url, tmp_path):  # noqa: F811
    pages = [(p.url, extract(p.html.encode(), url=p.url)) for p in build_blog()]
    one = SiteMemory()
    alone = [one.decide(url, found) for url, found in pages]
    half = len(pages) // 2
    probabilities = []
    for number, part in enumerate((pages[:half], pages[half:])):  # one process, then another
        path = tmp_path / f"part{number}.pickle"
        path.write_bytes(pickle.dumps(part))
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
        run = subprocess.run(
            [sys.executable, "-c", SHARED_RUN, redis_url, "test:shared", str(path)],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
            check=True,
        )
        probabilities += json.loads(run.stdout)
    assert probabilities == [v.probability for v in alone]
    restarted = RedisSiteMemory(redis_url, prefix="test:shared")  # a new client: the memory is kept
    url, found = pages[3]
    assert restarted.judge(url, found) == SiteMemory_after(pages).judge(url, found)
    restarted.forget()
    assert not redis.Redis.from_url(redis_url).keys("test:shared:*")


def SiteMemory_after(pages) -> SiteMemory:  # noqa: N802 - reads as what it gives
    memory = SiteMemory()
    for url, found in pages:
        memory.decide(url, found)
    return memory


@pytest.mark.redis
def test_redis_memory_is_bounded_and_forgets_the_oldest_site(redis_url):  # noqa: F811
    memory = RedisSiteMemory(redis_url, prefix="test:bounded", max_sites=2, weights=LEANING)
    for site in ("one.example", "two.example", "three.example"):
        teach(memory, site, 2)
    client = redis.Redis.from_url(redis_url)
    assert sorted(k.decode() for k in client.zrange("test:bounded:order", 0, -1)) == ["three.example", "two.example"]
    assert not client.exists("test:bounded:site:one.example")
    memory.forget()


# ------------------------------------------------------------------------------------ command line
def test_the_command_line_weighs_a_folder_of_a_sites_pages_with_site_memory(tmp_path):
    pages = build_blog()
    folder = tmp_path / "site"
    folder.mkdir()
    for number, page in enumerate(pages):
        (folder / f"{number:03d}.html").write_text(page.html, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    rows = {}
    for mode in ("on", "off"):
        run = subprocess.run(
            [
                sys.executable,
                "-m",
                "scrapy_bodytext",
                "extract",
                "--json",
                "--jobs",
                "1",
                "--site-memory",
                mode,
                str(folder),
            ],
            capture_output=True,
            text=True,
            env=env,
            timeout=240,
            check=True,
        )
        rows[mode] = [json.loads(line) for line in run.stdout.splitlines()]
    assert len(rows["on"]) == len(rows["off"]) == len(pages)
    assert all(row["site_evidence"]["site"] == "example.org" for row in rows["on"])
    assert not any("site_evidence" in row for row in rows["off"])
    last_post = max(i for i, page in enumerate(pages) if page.is_article)
    assert FURNITURE[0] in rows["off"][last_post]["text"]
    assert FURNITURE[0] not in rows["on"][last_post]["text"]


def test_the_datatrove_step_weighs_a_sites_documents_in_order_as_extract_does():
    pytest.importorskip("datatrove", reason="the datatrove extra is not installed (pip install '.[datatrove]')")
    from datatrove.data import Document

    from scrapy_bodytext.integrations.datatrove import BodyTextExtractor

    pages = build_blog()
    docs = [Document(text=p.html, id=str(n), metadata={"url": p.url}) for n, p in enumerate(pages)]
    step = BodyTextExtractor(site_memory=True, drop_non_articles=False)
    kept = list(step.run(iter(docs)))
    memory = SiteMemory()
    expected = [extract(p.html, url=p.url, memory=memory) for p in pages]
    assert [doc.metadata["article_probability"] for doc in kept] == [r.article_probability for r in expected]
    assert [doc.text for doc in kept] == [r.text for r in expected]
    assert all(doc.metadata["site_evidence"]["site"] == "example.org" for doc in kept)
