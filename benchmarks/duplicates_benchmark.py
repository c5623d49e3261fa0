#!/usr/bin/env python
"""Near-duplicate articles: recall by kind of change, false duplicates, cost, memory and Redis throughput.

    python benchmarks/duplicates_benchmark.py [DIR] [--sample N] [--seed S] [--no-redis]

Every article of DIR (default ../shared/corpus/dev) is extracted with the default method and
fingerprinted. Duplicates are built here from a random sample of N articles (default 300), each in
six ways, and extracted again like any page:

- ``template``: the article's paragraphs put in place of another article's in that page (another
  site's furniture around the same body; the host is a page of another source whose paragraph
  elements hold 90 % of its extracted text, so that none of its own story stays around the body);
- ``url``: the same page under a tracking-parameter, AMP or print URL (in turn);
- ``update``: the headline changed and a paragraph added or removed (in turn);
- ``syndication``: another site's template, another headline, the lead paragraph replaced and a
  closing line added (a wire story as another site carries it);
- ``teaser``: the first quarter of the paragraphs only, the rest cut.

A variant counts as found when the index holding every original names its own original. False
duplicates: all pairs of distinct articles (each pair's MinHash similarity, and what the index flags
when every article is claimed in corpus order). Cost: CPU time of fingerprinting and claiming beside
the default method's extraction of the same pages, in the same loop. Memory: the in-memory index
filled with synthetic signatures and the corpus's URLs, measured with tracemalloc. Redis: claims per
second against a redis-server started on 127.0.0.1. This is a measurement script, not a test.
"""

from __future__ import annotations

import argparse
import gc
import random
import shutil
import socket
import subprocess
import sys
import time
import tracemalloc
from dataclasses import dataclass
from pathlib import Path

import lxml.html
import numpy as np
from datasketch import MinHash

from scrapy_bodytext import api
from scrapy_bodytext.duplicates import DEFAULT_SIMILARITY, NUM_PERM, Fingerprint, MemoryIndex, fingerprint
from scrapy_bodytext.duplicates.shingles import SCHEME, SEED, _permutations
from scrapy_bodytext.evaluation.corpus import iter_corpus
from scrapy_bodytext.evaluation.report import machine_description

DEFAULT_CORPUS = Path(__file__).resolve().parent.parent.parent / "shared" / "corpus" / "dev"
KINDS = ("template", "url", "update", "syndication", "teaser")
SIMILARITIES = (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)
#: elements whose text is one line of an extraction (a paragraph, a heading, a list item, a quote)
BLOCKS = {"p", "li", "blockquote", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "div", "td", "dd"}
CLOSING_LINE = "This story was first published by a partner news agency and is republished here with permission."
#: gold-text similarity at or above which two corpus pages are the same story (the corpus's own copies)
TWIN_GOLD = 0.5
#: share of a host page's extracted words its matched blocks must hold to lend its template
HOST_COVERAGE = 0.9
#: articles shorter than this many words are not varied (too little text to repeat or rewrite)
MIN_WORDS = 80


@dataclass
class Article:
    id: str
    source: str
    url: str
    body: bytes
    charset: str | None
    text: str
    gold: str
    title: str
    print_: Fingerprint


def squeeze(text: str) -> str:
    return " ".join(text.split())


def blocks_of(tree: lxml.html.HtmlElement, lines: list[str]) -> list[lxml.html.HtmlElement]:
    """The innermost elements whose text is one line of the page's extraction, in document order."""
    wanted = {squeeze(line) for line in lines if len(line.split()) >= 3}
    found, used = [], set()
    for element in tree.iter():
        if not isinstance(element.tag, str) or element.tag not in BLOCKS:
            continue
        text = squeeze(element.text_content())
        if text in wanted and text not in used:
            if any(element in ancestor.iterdescendants() for ancestor in found[-3:]):
                found = [a for a in found if element not in a.iterdescendants()]
            found.append(element)
            used.add(text)
    inner = [e for e in found if not any(o is not e and o in e.iterdescendants() for o in found)]
    return inner


def paragraphs(article: Article) -> list[str]:
    return [line for line in article.text.splitlines() if len(line.split()) >= 3]


def put_body(host: Article, lines: list[str], title: str) -> bytes | None:
    """``host``'s page with its article paragraphs replaced by ``lines`` and its headline by ``title``."""
    tree = lxml.html.fromstring(host.body)
    found = blocks_of(tree, paragraphs(host))
    covered = sum(len(element.text_content().split()) for element in found)
    if len(found) < 3 or covered < HOST_COVERAGE * len(host.text.split()):
        return None  # the host's own text would stay around the body: not a clean template
    anchor = found[0]
    parent, position = anchor.getparent(), anchor.getparent().index(anchor)
    for element in found:
        element.getparent().remove(element)
    for offset, line in enumerate(lines):
        new = lxml.html.Element("p")
        new.text = line
        parent.insert(position + offset, new)
    retitle(tree, title)
    return lxml.html.tostring(tree, encoding="utf-8")


def retitle(tree: lxml.html.HtmlElement, title: str) -> None:
    for path in ("//title", "//h1"):
        for element in tree.xpath(path)[:1]:
            for child in list(element):
                element.remove(child)
            element.text = title


def edit(article: Article, change) -> bytes | None:
    """``article``'s own page with ``change(tree, blocks)`` applied."""
    tree = lxml.html.fromstring(article.body)
    found = blocks_of(tree, paragraphs(article))
    if len(found) < 3:
        return None
    change(tree, found)
    return lxml.html.tostring(tree, encoding="utf-8")


def variants(article: Article, other: Article, third: Article, number: int) -> dict[str, tuple[bytes, str] | None]:
    """The five kinds of copy of ``article`` (``other`` lends its template, ``third`` its text)."""
    own = paragraphs(article)
    borrowed = [line for line in paragraphs(third) if len(line.split()) >= 12] or paragraphs(third)
    url = article.url
    made: dict[str, tuple[bytes, str] | None] = {}
    body = put_body(other, own, article.title)
    made["template"] = (body, f"https://copies.example/{number}/story.html") if body else None
    made["url"] = (
        article.body,
        (
            url + ("&" if "?" in url else "?") + "utm_source=newsletter&utm_medium=email&utm_campaign=daily",
            url.rstrip("/") + "/amp/",
            url + ("&" if "?" in url else "?") + "print=1",
        )[number % 3],
    )

    def update(tree, found):
        retitle(tree, "Updated: " + third.title)
        middle = found[len(found) // 2]
        if number % 2:
            middle.getparent().remove(middle)
        else:
            new = lxml.html.Element("p")
            new.text = borrowed[0]
            middle.addnext(new)

    body = edit(article, update)
    made["update"] = (body, url + "#updated") if body else None
    lead = borrowed[0]
    body = put_body(other, [lead, *own[1:], CLOSING_LINE], third.title)
    made["syndication"] = (body, f"https://wire.example/{number}/story.html") if body else None

    def teaser(tree, found):
        for element in found[max(1, len(found) // 4) :]:
            element.getparent().remove(element)

    body = edit(article, teaser)
    made["teaser"] = (body, f"https://teasers.example/{number}/") if body else None
    return made


def table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", nargs="?", default=str(DEFAULT_CORPUS), metavar="DIR")
    parser.add_argument("--sample", type=int, default=300, help="articles varied (default 300)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-redis", action="store_true", help="skip the Redis throughput")
    args = parser.parse_args(argv)
    machine = machine_description()
    print(f"# Duplicates benchmark, {machine.get('date', '')}\n")
    print(f"machine: {machine}\n")
    config = api.default_config()
    cpu = time.process_time
    articles: list[Article] = []
    extract_s = print_s = 0.0
    timing_index = MemoryIndex(DEFAULT_SIMILARITY)
    for page in iter_corpus(args.corpus):
        if not page.is_article:
            continue
        url = page.url or f"https://{page.source}.example/{page.id}"
        started = cpu()
        result = api.extract_with_config(page.body, config, url=url, encoding=page.charset)
        middle = cpu()
        print_ = fingerprint(result.text)
        timing_index.claim(url, print_)
        ended = cpu()
        extract_s += middle - started
        print_s += ended - middle
        articles.append(
            Article(
                page.id, page.source, url, page.body, page.charset, result.text, page.gold_text, result.title, print_
            )
        )
    n = len(articles)
    print(f"{n} articles of {args.corpus} extracted with the default method and fingerprinted\n")
    apart_index = MemoryIndex(DEFAULT_SIMILARITY)
    started = cpu()
    for article in articles:
        apart_index.claim(article.url, fingerprint(article.text))
    apart_s = cpu() - started

    # --- false duplicates among distinct articles -----------------------------------------------
    # Pairs whose gold texts are copies (MinHash similarity of the gold texts >= TWIN_GOLD) or that
    # share a URL are the corpus's own duplicates (one page in two sources, test fixtures repeated):
    # listed, not counted as false. Articles with no extracted word are never compared.
    compared = [a for a in articles if a.print_.words]
    golds = np.stack([fingerprint(a.gold).signature for a in compared])
    signatures = np.stack([a.print_.signature for a in compared])
    m = len(compared)
    pairs = m * (m - 1) // 2
    false_pairs = dict.fromkeys(SIMILARITIES, 0)
    twins: dict[str, set[str]] = {a.id: set() for a in articles}
    close = []
    for i in range(m - 1):
        similar = (signatures[i + 1 :] == signatures[i]).sum(axis=1) / NUM_PERM
        gold = (golds[i + 1 :] == golds[i]).sum(axis=1) / NUM_PERM
        for offset in np.nonzero((similar >= min(SIMILARITIES)) | (gold >= TWIN_GOLD))[0]:
            a, b = compared[i], compared[i + 1 + int(offset)]
            twin = bool(gold[offset] >= TWIN_GOLD or a.url == b.url)
            if twin:
                twins[a.id].add(b.id)
                twins[b.id].add(a.id)
            else:
                for threshold in SIMILARITIES:
                    false_pairs[threshold] += bool(similar[offset] >= threshold)
            if similar[offset] >= min(SIMILARITIES):
                close.append((float(similar[offset]), float(gold[offset]), twin, a, b))
    index_flags = {}
    by_url = {a.url: a for a in articles}
    for threshold in SIMILARITIES:
        index = MemoryIndex(threshold)
        flagged = 0
        for a in compared:
            match = index.claim(a.url, a.print_)
            # a copy of the same URL (one page in two sources) is the corpus's own duplicate too
            flagged += match is not None and match.url != a.url and by_url[match.url].id not in twins[a.id]
        index_flags[threshold] = flagged

    # --- variants -------------------------------------------------------------------------------
    rng = random.Random(args.seed)
    eligible = [a for a in articles if a.print_.words >= MIN_WORDS and len(paragraphs(a)) >= 3]
    hosts = [a for a in eligible if put_body(a, ["A line."] * 3, "A title") is not None]
    sample = rng.sample(eligible, min(args.sample, len(eligible)))
    built: dict[str, list[tuple[Article, Fingerprint]]] = {kind: [] for kind in KINDS}
    not_built = dict.fromkeys(KINDS, 0)
    for number, article in enumerate(sample):
        other = rng.choice([a for a in hosts if a.source != article.source] or hosts)
        third = rng.choice([a for a in eligible if a is not article and a is not other])
        for kind, made in variants(article, other, third, number).items():
            if made is None:
                not_built[kind] += 1
                continue
            body, url = made
            result = api.extract_with_config(body, config, url=url, encoding=article.charset if kind == "url" else None)
            built[kind].append((article, fingerprint(result.text)))
    recall: dict[float, dict[str, float]] = {}
    for threshold in SIMILARITIES:
        index = MemoryIndex(threshold)
        for article in articles:
            index.claim(article.url, article.print_)
        recall[threshold] = {}
        for kind in KINDS:
            found = 0
            for article, print_ in built[kind]:
                match = index.lookup(print_)
                found += match is not None and (match.url == article.url or by_url[match.url].id in twins[article.id])
            recall[threshold][kind] = found / len(built[kind]) if built[kind] else float("nan")

    print(f"## Recall by kind of change ({len(sample)} articles sampled at random, seed {args.seed})\n")
    header = ["similarity", *KINDS, "false duplicate pairs", "false flags in corpus order"]
    rows = []
    for threshold in SIMILARITIES:
        rows.append(
            [
                f"{threshold:.1f}",
                *(f"{recall[threshold][kind]:.3f}" for kind in KINDS),
                f"{false_pairs[threshold]} of {pairs}",
                str(index_flags[threshold]),
            ]
        )
    print(table(header, rows))
    print(f"\ntemplates lent by {len(hosts)} article pages whose matched blocks hold {HOST_COVERAGE:.0%} of their text")
    print(f"variants built per kind: {', '.join(f'{k} {len(v)}' for k, v in built.items())}")
    if any(not_built.values()):
        print(f"not built (fewer than 3 paragraphs found in the page): {not_built}")
    skipped = len(articles) - m
    print(f"\n{m} articles with extracted words compared ({skipped} with none: never indexed)")
    print(
        f"\n## Pairs at similarity {min(SIMILARITIES)} or more (extracted texts), with their gold texts' similarity\n"
    )
    close.sort(key=lambda found: (not found[2], -found[0]))
    rows = [
        [
            f"{sim:.3f}",
            f"{gold:.3f}",
            "corpus duplicate" if twin else "distinct",
            a.id,
            b.id,
            f"{a.print_.words}/{b.print_.words}",
        ]
        for sim, gold, twin, a, b in [found for found in close if found[2]]
        + [found for found in close if not found[2]][:30]
    ]
    print(table(["similarity", "gold similarity", "pair", "article", "article", "words"], rows) if rows else "none")
    distinct = sum(not found[2] for found in close)
    if distinct > 30:
        print(f"\n(the 30 most similar of {distinct} distinct pairs shown)")

    # --- cost -----------------------------------------------------------------------------------
    print("\n## Cost per page (CPU time, every article)\n")
    print(
        table(
            ["fingerprint + index claim", "default method", "added", "share"],
            [
                [
                    "in a loop of its own (the crawl's process, extraction in worker processes: the default)",
                    f"{1000 * extract_s / n:.2f} ms",
                    f"{1000 * apart_s / n:.3f} ms",
                    f"{100 * apart_s / extract_s:.2f} %",
                ],
                [
                    "right after each extraction, in one process (BODYTEXT_WORKERS = 0)",
                    f"{1000 * extract_s / n:.2f} ms",
                    f"{1000 * print_s / n:.3f} ms",
                    f"{100 * print_s / extract_s:.2f} %",
                ],
            ],
        )
    )

    # --- memory ---------------------------------------------------------------------------------
    print("\n## Memory of the in-memory index\n")
    rows = []
    urls = [a.url for a in articles]
    for count in (10_000, 50_000):
        fake = synthetic(count, urls)
        gc.collect()
        tracemalloc.start()
        index = MemoryIndex(DEFAULT_SIMILARITY)
        for number, print_ in enumerate(fake):
            index.claim(f"{urls[number % len(urls)]}#{number}", print_)
        used, _ = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        del index, fake
        rows.append([f"{count:,}", f"{used / 2**20:.1f} MiB", f"{used / count * 1e6 / 2**30:.2f} GiB"])
    print(table(["articles", "traced memory", "per million articles"], rows))

    if not args.no_redis:
        print("\n## Redis on 127.0.0.1\n")
        print(redis_figures(articles))
    return 0


def synthetic(count: int, urls: list[str]) -> list[Fingerprint]:
    """Fingerprints of distinct texts (random MinHash values: every band its own bucket, the worst case)."""
    rng = np.random.default_rng(7)
    values = rng.integers(0, 2**32, size=(count, NUM_PERM), dtype=np.uint64).astype(np.uint32)
    return [
        Fingerprint(
            rng.bytes(16),
            MinHash(hashvalues=row, permutations=_permutations(), scheme=SCHEME, seed=SEED),
            500,
        )
        for row in values
    ]


def redis_figures(articles: list[Article]) -> str:
    server = shutil.which("redis-server")
    if server is None:
        return "no redis-server on PATH: skipped"
    from scrapy_bodytext.duplicates.redis_index import RedisIndex

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = subprocess.Popen(
        [server, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
    )
    try:
        index = None
        for _ in range(50):
            try:
                index = RedisIndex(f"redis://127.0.0.1:{port}/0", similarity=DEFAULT_SIMILARITY)
                break
            except Exception:  # noqa: BLE001 - the server is still starting
                time.sleep(0.1)
        assert index is not None, "redis-server did not start"
        before = int(index.client.info("memory")["used_memory"])
        fresh = synthetic(20_000, [a.url for a in articles])
        started = time.perf_counter()
        for number, print_ in enumerate(fresh):
            index.claim(f"https://synthetic.example/{number}", print_)
        stored_rate = len(fresh) / (time.perf_counter() - started)
        used = int(index.client.info("memory")["used_memory"]) - before
        for article in articles:
            index.claim(article.url, article.print_)
        started = time.perf_counter()
        found = sum(index.claim(article.url + "?copy", article.print_) is not None for article in articles)
        match_rate = len(articles) / (time.perf_counter() - started)
        index.clear()
        index.close()
    finally:
        process.terminate()
        process.wait(10)
    return (
        table(
            ["claims of new articles", "claims of copies", "copies found", "Redis memory per million articles"],
            [
                [
                    f"{stored_rate:,.0f}/s",
                    f"{match_rate:,.0f}/s",
                    f"{found} of {len(articles)}",
                    f"{used / len(fresh) * 1e6 / 2**30:.2f} GiB",
                ]
            ],
        )
        + "\n\n(one client, one claim per round trip: a Lua script that looks up and stores at once)"
    )


if __name__ == "__main__":
    sys.exit(main())
