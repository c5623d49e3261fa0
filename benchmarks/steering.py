#!/usr/bin/env python
"""Steering measured on whole sites: real Scrapy crawls of every site of a site corpus from its home
page, following links only, with ``BODYTEXT_STEER`` off, observe, prioritize and prune side by side.

    python benchmarks/steering.py CORPUS_DIR [--sites a,b] [--modes off,observe,prioritize,prune]
                                  [--concurrency N] [--parallel N] [--output FILE] [--json FILE]

Serving is ``site_crawl.py``'s (each site on a port of its own on 127.0.0.1; a path with or without
its trailing slash, percent-encoding normalised, the hosts the pages were exported from as aliases;
anything else answers 404), and so is the spider, except that nothing is requested that no link
reaches (no page "after"). The add-on runs with its defaults (site memory on, extraction in the crawl's
process), one request at a time by default (``--concurrency 1``: the order of fetches is then exactly
the scheduler's, priorities included), breadth first (``DEPTH_PRIORITY = 1``, FIFO queues).

Figures, per site and in all: pages fetched (200 and 404), articles stored (items of pages labelled
articles) and against the full crawl (``off``), non-article pages fetched (pages labelled otherwise)
per article stored, 404s; pages fetched (in the order they came; the 404s left out: they are the
pages the corpus did not sample, articles and listings of the real site alike, which a crawler
cannot tell from the pages it has) until 50, 90 and 100 % of the articles the full crawl stored were
fetched, beside the **greedy bound** on the
same link graph (the links of every page, extracted as the crawl extracts them: a crawler that knows
every page's label fetches a linked article whenever one is known, else the known non-article page
linking to the most unfetched articles); and, from the ``observe`` crawl, the precision and recall of
each role the steering gave the links it let through against the pages' labels (article; pagination;
listing: home, taxonomy, section, author and date archives; service; other and documentation: other).

Nothing is fitted here: the steering's priors and settings are the same general defaults on every
site, so there is nothing to leave a site out of.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent))

import scrapy  # noqa: E402
from scrapy import signals  # noqa: E402
from scrapy.linkextractors import LinkExtractor  # noqa: E402
from site_crawl import (  # noqa: E402
    LocalSite,
    SiteCrawlSpider,
    crawl_settings,
    finish_crawl,
    read_sites,
    run_crawl_process,
    start_crawl,
    start_rows,
    url_target,
)

MODES = ("off", "observe", "prioritize", "prune")
SHARES = (0.5, 0.9, 1.0)
META_ROLE = "bodytext_link_role"


def label_role(row: dict) -> str:
    """The role a link to this page should get, from its labels."""
    if row["is_article"]:
        return "article"
    if row["page_type"] == "listing":
        return "pagination" if row.get("listing_kind") == "pagination" else "listing"
    if row["page_type"] == "service":
        return "service"
    return "other"


# --- the spider (runs in the crawl's process) ---------------------------------------------------


class SteerCrawlSpider(SiteCrawlSpider):
    """``SiteCrawlSpider`` following links only; records every response in order, with the role the
    steering gave its request."""

    name = "steer_crawl"

    @classmethod
    def from_crawler(cls, crawler: Any, *args: Any, **kwargs: Any) -> SteerCrawlSpider:
        spider = super().from_crawler(crawler, *args, **kwargs)
        spider.order = []
        crawler.signals.connect(spider.received, signal=signals.response_received)
        return spider

    def request_unreached(self) -> None:  # links only: nothing is requested that no link reaches
        return

    def received(self, response: scrapy.http.Response, request: scrapy.Request, spider: Any = None) -> None:
        page_id = self.paths.find(url_target(response.url))
        self.order.append([page_id, response.status, request.meta.get(META_ROLE)])

    def closed(self, reason: str) -> None:
        super().closed(reason)
        record = json.loads(self.visits_file.read_text(encoding="utf-8"))
        record["order"] = self.order
        self.visits_file.write_text(json.dumps(record), encoding="utf-8")


# --- the link graph and the greedy bound ---------------------------------------------------------


def link_graph(corpus: Path, rows: list[dict]) -> dict[str, set[str]]:
    """Record id -> the record ids its local links reach (as the crawl's link extractor finds them)."""
    from scrapy.http import HtmlResponse

    with LocalSite(corpus, rows) as site:
        local = urlsplit(site.base_url).netloc
        extractor = LinkExtractor(allow_domains=[local])
        graph: dict[str, set[str]] = {}
        for row in rows:
            body, _ = site.resolve(url_target(row["url"]))
            response = HtmlResponse(site.base_url + url_target(row["url"]), body=body, encoding="utf-8")
            found = {site.paths.find(url_target(link.url)) for link in extractor.extract_links(response)}
            graph[row["id"]] = {page for page in found if page is not None and page != row["id"]}
    return graph


def greedy_order(graph: dict[str, set[str]], starts: list[str], targets: set[str]) -> list[str]:
    """The fetches of a crawler that knows every page's label: a known target first, else the known
    page linking to the most unfetched targets (then to the most unknown pages)."""
    fetched: list[str] = []
    done: set[str] = set()
    frontier = list(dict.fromkeys(starts))
    known = set(frontier)
    while frontier:
        wanted = [page for page in frontier if page in targets]
        if wanted:
            page = wanted[0]
        else:
            page = max(
                frontier,
                key=lambda p: (len((graph[p] & targets) - done), len(graph[p] - known)),
            )
        frontier.remove(page)
        fetched.append(page)
        done.add(page)
        for linked in sorted(graph[page]):
            if linked not in known:
                known.add(linked)
                frontier.append(linked)
        if targets <= done:
            break
    return fetched


def requests_to(order: list[str | None], targets: set[str]) -> dict[float, int | None]:
    """Requests (in order) until each share of ``targets`` was fetched (None: never)."""
    found: dict[float, int | None] = dict.fromkeys(SHARES)
    seen = 0
    for number, page in enumerate(order, 1):
        seen += page in targets
        for share in SHARES:
            if found[share] is None and targets and seen >= share * len(targets):
                found[share] = number
    return found


# --- one site in one mode ------------------------------------------------------------------------


def crawl_site(mode: str, name: str, rows: list[dict], folder: Path, options: argparse.Namespace) -> dict[str, Any]:
    settings = crawl_settings(folder / f"{mode}-{name}", options.concurrency, "0", {"BODYTEXT_STEER": mode})
    with LocalSite(options.corpus, rows) as site:
        started = time.perf_counter()
        process = start_crawl(
            folder / f"{mode}-{name}", site, rows, start_rows(rows), True, settings, script=Path(__file__).resolve()
        )
        crawl = finish_crawl(folder / f"{mode}-{name}", process)
        seconds = time.perf_counter() - started
    by_id = {row["id"]: row for row in rows}
    order = crawl["visits"]["order"]
    stored = {item["id"] for item in crawl["items"]}
    pages = [page for page, status, _ in order if page is not None and status == 200]
    return {
        "order": pages,
        "roles": {page: role for page, status, role in order if page is not None and status == 200 and role},
        "stored_articles": sorted(page for page in stored if by_id[page]["is_article"]),
        "fetched": len(order),
        "not_found": sum(1 for _, status, _ in order if status != 200),
        "non_articles": sum(1 for page in pages if not by_id[page]["is_article"]),
        "steer": {key: value for key, value in crawl["stats"].items() if key.startswith("bodytext/steer/")},
        "dropped": crawl["stats"].get("item_dropped_count", 0),
        "items": len(crawl["items"]),
        "responses": crawl["stats"].get("response_received_count", 0),
        "extracted": crawl["stats"].get("bodytext/items/extracted", 0),
        "seconds": seconds,
    }


def run_all(options: argparse.Namespace, sites: dict[str, list[dict]], folder: Path) -> dict[str, dict[str, Any]]:
    from concurrent.futures import ThreadPoolExecutor

    jobs = [(mode, name) for name in sites for mode in options.modes]
    results: dict[str, dict[str, Any]] = {mode: {} for mode in options.modes}
    with ThreadPoolExecutor(options.parallel) as pool:
        futures = {job: pool.submit(crawl_site, job[0], job[1], sites[job[1]], folder, options) for job in jobs}
        for (mode, name), future in futures.items():
            results[mode][name] = future.result()
            print(f"  {name} {mode}: {results[mode][name]['fetched']} requests", file=sys.stderr, flush=True)
    return results


# --- the report ---------------------------------------------------------------------------------


def ratio(part: float, whole: float, digits: int = 2) -> str:
    return f"{part / whole:.{digits}f}" if whole else "-"


def report(results: dict[str, dict[str, Any]], sites: dict[str, list[dict]], corpus: Path, header: list[str]) -> str:
    modes = list(results)
    full = "off" if "off" in results else modes[0]
    lines = [*header, ""]
    rows_out = []
    totals: dict[str, Counter] = {mode: Counter() for mode in modes}
    greedy_total: Counter = Counter()
    lowest: dict[str, float] = dict.fromkeys(modes, 1.0)
    later: list[str] = []  # sites where prioritize needs more pages to 90 % than off
    for name, rows in sites.items():
        targets = set(results[full][name]["stored_articles"])
        graph = link_graph(corpus, rows)
        by_id = {row["id"]: row for row in rows}
        starts = [row["id"] for row in start_rows(rows)]
        greedy = greedy_order(graph, starts, targets)
        greedy_to = requests_to(greedy, targets)
        greedy_non = sum(1 for page in greedy if not by_id[page]["is_article"])
        greedy_total.update(
            {"non": greedy_non, "articles": len(targets), **{f"to{share}": greedy_to[share] or 0 for share in SHARES}}
        )
        for mode in modes:
            one = results[mode][name]
            stored = set(one["stored_articles"])
            to = requests_to(one["order"], targets)
            share = len(stored & targets) / len(targets) if targets else 1.0
            lowest[mode] = min(lowest[mode], share)
            if mode == "prioritize" and "off" in results:
                off_to = requests_to(results["off"][name]["order"], targets)[0.9]
                if to[0.9] is not None and off_to is not None and to[0.9] > off_to:
                    later.append(f"{name} ({to[0.9]} > {off_to})")
            totals[mode].update(
                {
                    "fetched": one["fetched"],
                    "non": one["non_articles"],
                    "articles": len(stored),
                    "kept": len(stored & targets),
                    "targets": len(targets),
                    "not_found": one["not_found"],
                    "lost": one["responses"] - one["not_found"] - one["items"] - one["dropped"],
                    **{f"to{s}": (to[s] or 0) for s in SHARES},
                    **{f"never{s}": to[s] is None for s in SHARES},
                }
            )
            rows_out.append(
                [
                    name,
                    mode,
                    str(one["fetched"]),
                    str(one["not_found"]),
                    str(len(stored)),
                    f"{100 * share:.1f} %",
                    str(one["non_articles"]),
                    ratio(one["non_articles"], len(stored)),
                    *(str(to[s]) if to[s] is not None else "never" for s in SHARES),
                    *(str(greedy_to[s]) if greedy_to[s] is not None else "never" for s in SHARES),
                ]
            )
    columns = [
        "site",
        "mode",
        "requests",
        "404s",
        "articles stored",
        "of the full crawl's",
        "non-articles fetched",
        "per article stored",
        "pages to 50 %",
        "to 90 %",
        "to 100 %",
        "greedy to 50 %",
        "to 90 %",
        "to 100 %",
    ]
    summary = [
        "| mode | requests | 404s | articles stored | of the full crawl's (lowest site) | non-articles fetched | "
        "per article stored | fewer non-articles than off | pages to 50 % | to 90 % | to 100 % | "
        "items in = stored + dropped |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for mode in modes:
        total = totals[mode]
        fewer = ratio(totals["off"]["non"] - total["non"], totals["off"]["non"], 3) if "off" in totals else "-"
        summary.append(
            f"| {mode} | {total['fetched']} | {total['not_found']} | {total['articles']} | "
            f"{100 * total['kept'] / max(1, total['targets']):.2f} % ({100 * lowest[mode]:.1f} %) | {total['non']} | "
            f"{ratio(total['non'], total['articles'])} | {fewer} | "
            + " | ".join(
                f"{total[f'to{s}']}" + (f" ({total[f'never{s}']} sites never)" if total[f"never{s}"] else "")
                for s in SHARES
            )
            + " | "
            + ("yes" if total["lost"] == 0 else f"no: {total['lost']} items neither")
            + " |"
        )
    summary.append(
        f"| greedy bound | | | {greedy_total['articles']} | | {greedy_total['non']} | "
        f"{ratio(greedy_total['non'], greedy_total['articles'])} | | "
        + " | ".join(str(greedy_total[f"to{s}"]) for s in SHARES)
        + " | |"
    )
    lines += ["## All sites", "", *summary, ""]
    if "prioritize" in totals:
        bound = greedy_total["to0.9"]
        lines.append(
            f"prioritize: pages fetched to 90 % {totals['prioritize']['to0.9']} = "
            f"{ratio(totals['prioritize']['to0.9'], bound)} x the greedy bound ({bound}); off {totals['off']['to0.9']} "
            f"= {ratio(totals['off']['to0.9'], bound)} x; sites where prioritize needs more pages to 90 % than off: "
            + (", ".join(later) or "none")
        )
        lines.append("")
    lines += ["## Per site", "", "| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(row) + " |" for row in rows_out]
    if "observe" in results:
        lines += ["", "## Link roles (the observe crawl: the role of each fetched page's request)", ""]
        lines += role_table(results["observe"], sites)
    lines += ["", "## Steering stats (all sites)", ""]
    for mode in modes:
        merged: Counter = Counter()
        for one in results[mode].values():
            merged.update({k: v for k, v in one["steer"].items() if isinstance(v, int | float)})
        if merged:
            stats = ", ".join(
                f"{key.removeprefix('bodytext/steer/')} {value}"
                for key, value in sorted(merged.items())
                if key != "bodytext/steer/pages_per_article"
            )
            lines.append(f"- {mode}: {stats}")
    return "\n".join(lines) + "\n"


def role_table(observed: dict[str, Any], sites: dict[str, list[dict]]) -> list[str]:
    guessed: Counter = Counter()
    actual: Counter = Counter()
    right: Counter = Counter()
    for name, rows in sites.items():
        by_id = {row["id"]: row for row in rows}
        for page, role in observed[name]["roles"].items():
            truth = label_role(by_id[page])
            guessed[role] += 1
            actual[truth] += 1
            right[role] += role == truth
    out = ["| role | guessed | labelled | right | precision | recall |", "|---|---|---|---|---|---|"]
    for role in ("article", "pagination", "listing", "feed", "service", "other"):
        out.append(
            f"| {role} | {guessed[role]} | {actual[role]} | {right[role]} | "
            f"{ratio(right[role], guessed[role], 3)} | {ratio(right[role], actual[role], 3)} |"
        )
    return out


def parse_arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", type=Path, metavar="CORPUS_DIR")
    parser.add_argument("--sites", default="")
    parser.add_argument("--modes", default=",".join(MODES))
    parser.add_argument("--concurrency", type=int, default=1)
    parser.add_argument("--parallel", type=int, default=2)
    parser.add_argument("--output", type=Path)
    parser.add_argument("--json", type=Path)
    options = parser.parse_args(argv)
    options.modes = [mode for mode in MODES if mode in options.modes.split(",")]
    return options


def main(argv: list[str] | None = None) -> int:
    from datetime import UTC, datetime

    from scrapy_bodytext.evaluation.report import machine_description

    options = parse_arguments(argv)
    sites = read_sites(options.corpus, options.sites.split(",") if options.sites else None)
    header = [
        f"# Steering on whole sites: {options.corpus}",
        "",
        f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC; {machine_description()['summary']}",
        "",
        f"{len(sites)} sites, {sum(map(len, sites.values()))} pages; modes {', '.join(options.modes)}; "
        f"concurrency {options.concurrency}; {options.parallel} crawl processes at once; links only from each home page",
    ]
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="steering-") as temporary:
        results = run_all(options, sites, Path(temporary))
    header.append(f"\nwall time {time.perf_counter() - started:.0f} s")
    text = report(results, sites, options.corpus, header)
    print(text, end="")
    if options.output:
        options.output.write_text(text, encoding="utf-8")
    if options.json:
        options.json.write_text(json.dumps(results, indent=1, default=str), encoding="utf-8")
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--crawl":
        sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
        run_crawl_process(sys.argv[2], SteerCrawlSpider)
    else:
        sys.exit(main())
