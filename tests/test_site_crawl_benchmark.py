"""benchmarks/site_crawl.py end to end on a tiny generated site corpus: a blog of three posts and its
home page, served on 127.0.0.1 and crawled for real; what it prints and writes matches what was built."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

from scrapy_bodytext.plugin.settings import DEFAULTS

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "site_crawl.py"
HOST = "https://blog.example"

WORDS = (
    "river harbour morning council budget bridge ferry winter market lantern school garden railway storm "
    "museum library festival orchard quarry lighthouse"
).split()


def paragraphs(seed: int) -> list[str]:
    """Five long paragraphs of varied prose for one post."""
    made = []
    for number in range(5):
        words = [WORDS[(seed * 7 + number * 3 + index * 5) % len(WORDS)] for index in range(70)]
        sentences = [" ".join(words[start : start + 10]).capitalize() + "." for start in range(0, 70, 10)]
        made.append(" ".join(sentences))
    return made


def page(title: str, body: str) -> str:
    return (
        f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>{title} | Tiny blog</title></head>"
        f"<body><header><nav><a href='/'>Home</a> <a href='{HOST}/about/'>About</a></nav></header>"
        f"<main>{body}</main><footer><p>Tiny blog, a generated site</p></footer></body></html>"
    )


def post(slug: str, title: str, seed: int) -> tuple[str, str]:
    texts = paragraphs(seed)
    body = (
        f"<article><h1>{title}</h1><p class='meta'>By A. Writer, <time datetime='2024-05-0{seed}'>May {seed}, "
        f"2024</time></p>" + "".join(f"<p>{text}</p>" for text in texts) + "</article>"
    )
    return page(title, body), "\n\n".join(texts)


def build_corpus(folder: Path) -> dict[str, dict]:
    """Three posts and the home page listing them: ``alpha`` linked by absolute URL to the public host,
    ``beta`` by a protocol-relative URL without the trailing slash its record has, ``gamma`` linked
    from nowhere; every page links to an about page and the home page to an older-posts page, neither
    in the corpus."""
    (folder / "pages").mkdir(parents=True)
    posts = {"alpha": ("Alpha at the harbour", 1), "beta": ("Beta and the bridge", 2), "gamma": ("Gamma", 3)}
    listing = "".join(
        f"<li><h2><a href='{href}'>{posts[slug][0]}</a></h2><p>A short teaser of the post.</p></li>"
        for slug, href in (("alpha", f"{HOST}/posts/alpha/"), ("beta", "//blog.example/posts/beta"))
    )
    home = page("Tiny blog", f"<h1>Latest posts</h1><ul>{listing}</ul><a href='/missing/'>Older posts</a>")
    records = {
        "tiny-1": {"url": f"{HOST}/", "html": home, "is_article": False, "page_type": "listing",
                   "listing_kind": "home", "gold_text": None},
    }  # fmt: skip
    for number, (slug, (title, seed)) in enumerate(posts.items(), start=2):
        html, gold = post(slug, title, seed)
        records[f"tiny-{number}"] = {"url": f"{HOST}/posts/{slug}/", "html": html, "is_article": True,
                                     "page_type": "article", "listing_kind": None, "gold_text": gold}  # fmt: skip
    with open(folder / "index.jsonl", "w", encoding="utf-8") as index:
        for page_id, record in records.items():
            file = f"pages/{page_id}.html.gz"
            (folder / file).write_bytes(gzip.compress(record["html"].encode(), mtime=0))
            row = {"id": page_id, "source": "site-tiny", "site": "tiny", "url": record["url"], "lang": "en",
                   "is_article": record["is_article"], "page_type": record["page_type"],
                   "listing_kind": record["listing_kind"], "gold_text": record["gold_text"], "title": None,
                   "published": None, "file": file, "note": "generated"}  # fmt: skip
            index.write(json.dumps(row) + "\n")
    return records


def test_the_benchmark_crawls_every_page_of_a_built_site_once_and_counts_each_in_its_row(tmp_path):
    corpus = tmp_path / "corpus"
    records = build_corpus(corpus)
    figures_file, tables_file = tmp_path / "figures.json", tmp_path / "tables.md"
    command = [sys.executable, str(SCRIPT), str(corpus), "--modes", "off,on", "--seed", "3", "--concurrency", "2"]
    command += ["--json", str(figures_file), "--output", str(tables_file)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=280)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    assert tables_file.read_text(encoding="utf-8") == done.stdout
    memory = "BODYTEXT_SITE_MEMORY" in DEFAULTS
    assert ("site memory not available in this build: on skipped" in done.stdout) is not memory

    figures = json.loads(figures_file.read_text(encoding="utf-8"))
    assert list(figures["modes"]) == (["off", "on"] if memory else ["off"])
    for mode in figures["modes"].values():
        site = mode["sites"]["tiny"]
        assert mode["visits"]["tiny"] == {page_id: 1 for page_id in records}  # every page once
        assert (site["pages"], site["visited_once"], site["visited_again"], site["not_visited"]) == (4, 4, 0, 0)
        assert mode["requested_after"]["tiny"] == ["tiny-4"]  # gamma, linked from nowhere; alpha and beta reached
        assert site["requested_after"] == 1
        assert site["not_found"] == 2  # /missing/, and /about/ (linked on the public host, rewritten to the local one)
        assert (site["articles"], site["non_articles"], site["lost"]) == (3, 1, 0)
        assert site["articles_stored"] + site["articles_dropped"] == 3
        home = {"pages": 1, "stored": site["non_articles_stored"], "dropped": site["non_articles_dropped"]}
        assert site["kinds"] == {"listing: home": home}
        assert site["non_articles_dropped"] + site["non_articles_stored"] == 1

        verdicts = mode["verdicts"]["tiny"]
        assert set(verdicts) == set(records)
        assert verdicts["tiny-1"]["verdict"] == ("dropped" if site["non_articles_dropped"] else "stored")
        stored = [page_id for page_id in ("tiny-2", "tiny-3", "tiny-4") if verdicts[page_id]["verdict"] == "stored"]
        assert len(stored) == site["articles_stored"] == site["articles_with_gold_stored"]
        assert stored, "the generated posts are plain articles: at least one is stored"
        assert site["text_f1"] > 0.9
        assert site["text_lost"] == 0
        assert mode["total"]["articles_stored"] == site["articles_stored"]

    off = figures["modes"]["off"]["sites"]["tiny"]
    dropped_row = f"| tiny | listing: home |     1 | {off['non_articles_dropped']} ("
    assert dropped_row.replace(" ", "") in done.stdout.replace(" ", "")

    # memory off beside memory on: for every site and kind of page, a row per mode, off first, whose
    # counts are the JSON's, add up to the pages, and say the change in pages dropped from off
    modes = list(figures["modes"])
    rows = table(done.stdout, "## Memory off beside memory on")
    assert list(rows[0]) == ["site", "pages of", "pages", "mode", "stored", "dropped", "no verdict", "vs off"]
    kinds = ["articles", "non-articles", "listing: home"]
    assert [(row["site"], row["pages of"], row["mode"]) for row in rows] == [
        (name, kind, mode) for name in ("all", "tiny") for kind in kinds for mode in modes
    ]
    for row in rows:
        one = figures["modes"][row["mode"]]["total" if row["site"] == "all" else "sites"]
        one = one if row["site"] == "all" else one["tiny"]
        key = {"articles": "articles", "non-articles": "non_articles"}.get(row["pages of"])
        counts = (
            {"pages": one[key], "stored": one[f"{key}_stored"], "dropped": one[f"{key}_dropped"]}
            if key
            else one["kinds"][row["pages of"]]
        )
        dropped = int(row["dropped"].split()[0])
        assert (int(row["pages"]), int(row["stored"]), dropped) == (
            counts["pages"],
            counts["stored"],
            counts["dropped"],
        )
        assert int(row["stored"]) + dropped + int(row["no verdict"]) == int(row["pages"])
        off_row = next(
            r for r in rows if (r["site"], r["pages of"], r["mode"]) == (row["site"], row["pages of"], "off")
        )
        change = dropped - int(off_row["dropped"].split()[0])
        assert row["vs off"] == ("" if row["mode"] == "off" else f"{change:+d}")
    for mode in modes:  # the kinds of non-articles add up to the non-articles
        by_kind = [r for r in rows if r["mode"] == mode and r["site"] == "tiny" and r["pages of"] not in kinds[:2]]
        (whole,) = [r for r in rows if (r["mode"], r["site"], r["pages of"]) == (mode, "tiny", "non-articles")]
        assert sum(int(r["pages"]) for r in by_kind) == int(whole["pages"])
        assert sum(int(r["stored"]) for r in by_kind) == int(whole["stored"])

    crawls = table(done.stdout, "## The crawls")
    assert [(row["site"], row["mode"], row["pages"], row["visited once"]) for row in crawls] == [
        (name, mode, "4", "4") for name in ("tiny", "all") for mode in modes
    ]


def table(text: str, heading: str) -> list[dict[str, str]]:
    """The rows of the first Markdown table after ``heading``, each a dict by column name."""
    lines = text[text.index(heading + "\n") :].splitlines()
    start = next(number for number, line in enumerate(lines) if line.startswith("|"))
    found = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        found.append([cell.strip() for cell in line.strip().strip("|").split("|")])
    headers, rows = found[0], found[2:]
    return [dict(zip(headers, row)) for row in rows]
