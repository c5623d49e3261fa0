"""Spider and downloader middlewares: steer the crawl by what its sites' pages turned out to be
(docs/steering.md).

``BODYTEXT_STEER`` (default ``prioritize``): each request a spider yields to a page of the same site as
its response gets a role (``sites.links``, also set as ``Request.meta["bodytext_link_role"]``) and, in
``prioritize`` and ``prune``, a higher ``Request.priority`` for links that lead to articles soonest;
``prune`` also drops the requests that the site's pages say lead nowhere (``sites.steering``), when
they are yielded and again, in the downloader middleware, when the scheduler hands them over;
``observe`` changes no request and counts what ``prune`` would drop. A page's outcome is read from
Scrapy's own signals: its item stored (``item_scraped``) is an article, dropped (``item_dropped``) is
not, except a duplicate of a stored article. Items are never touched. Stats under ``bodytext/steer/``.
"""

from __future__ import annotations

import weakref
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any
from urllib.parse import urldefrag

from scrapy import Request, signals
from scrapy.exceptions import IgnoreRequest, NotConfigured
from scrapy.http import TextResponse

from ..sites.domains import site_key
from ..sites.links import NO_ANCHOR, Anchor
from ..sites.steering import Steering
from .pipelines import DuplicateArticle
from .settings import BodyTextSettingError, load_steer_settings
from .startup import crawler_settings, stop_crawl

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.http import Response

#: where the add-on places the downloader middleware: early, so a pruned request costs nothing
STEERING_DOWNLOADER_ORDER = 50
#: where the add-on places the spider middleware: after the depth middleware (900) set a request's priority, and next to the
#: engine, so it sees the (empty) output of pages the HTTP error middleware (50) filters, 404s included
STEERING_ORDER = 45
#: Request.meta key a spider sets True on a request the steering must leave alone
META_UNSTEERED = "bodytext_unsteered"
#: Request.meta key the steering sets on each request it let through: the link's role (``sites.links.ROLES``)
META_ROLE = "bodytext_link_role"
_HEADINGS = frozenset(("h1", "h2", "h3", "h4", "h5", "h6"))
#: anchor text read per link, at most (a title is shorter)
_ANCHOR_CHARS = 200
PREFIX = "bodytext/steer/"


def page_anchors(response: Response) -> dict[str, Anchor]:
    """Each link of the page (absolute, without fragment) with its anchor: text, inside a heading,
    ``rel`` words; a link found twice keeps its longest text and any heading or rel."""
    if not isinstance(response, TextResponse):
        return {}
    try:
        root = response.selector.root
        elements = root.iter("a", "area")
    except (AttributeError, ValueError):
        return {}
    found: dict[str, Anchor] = {}
    for element in elements:
        href = element.get("href")
        if not href:
            continue
        url = urldefrag(response.urljoin(href.strip())).url
        text = " ".join("".join(element.itertext())[:_ANCHOR_CHARS].split())
        heading = any(parent.tag in _HEADINGS for parent in element.iterancestors())
        rel = tuple((element.get("rel") or "").lower().split())
        known = found.get(url)
        if known is not None:
            text = max(text, known.text, key=len)
            heading, rel = heading or known.heading, rel or known.rel
        found[url] = Anchor(text, heading, rel)
    return found


_of_crawler: weakref.WeakKeyDictionary[Crawler, Steering] = weakref.WeakKeyDictionary()


def crawl_steering(crawler: Crawler) -> Steering:
    """The crawl's one steering, shared by its spider and downloader middlewares (``NotConfigured``
    when the plugin or ``BODYTEXT_STEER`` is off)."""
    crawler_settings(crawler)  # NotConfigured when the plugin is off
    found = _of_crawler.get(crawler)
    if found is None:
        try:
            settings = load_steer_settings(crawler.settings)
        except BodyTextSettingError as error:
            stop_crawl(error, crawler)
        if settings.mode == "off":
            raise NotConfigured("BODYTEXT_STEER is off")
        found = _of_crawler[crawler] = Steering(
            settings.mode,
            shape_pages=settings.shape_pages,
            paging_pages=settings.paging_pages,
            probe_every=settings.probe_every,
            max_sites=settings.sites,
            max_links=settings.links,
        )
    return found


class SteeringDownloaderMiddleware:
    """Looks again at each steered request when the scheduler hands it to the downloader: a request
    queued before its shape or list turned barren is dropped then (``prune``; ``IgnoreRequest``) or
    counted (``observe``)."""

    def __init__(self, crawler: Crawler, steering: Steering):
        self.crawler = crawler
        self.steering = steering

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> SteeringDownloaderMiddleware:
        return cls(crawler, crawl_steering(crawler))

    def process_request(self, request: Request) -> None:
        role = request.meta.get(META_ROLE)
        if role is None or self.steering.mode not in ("observe", "prune"):
            return
        prune = self.steering.recheck(urldefrag(request.url).url, role)
        if prune:
            self.crawler.stats.inc_value(f"{PREFIX}pruned/{prune}")
            if self.steering.mode == "prune":
                raise IgnoreRequest(f"steering: {prune}")


class SteeringSpiderMiddleware:
    def __init__(self, crawler: Crawler, steering: Steering):
        self.crawler = crawler
        self.steering = steering
        self.pages = 0
        self.articles = 0
        crawler.signals.connect(self.item_scraped, signal=signals.item_scraped)
        crawler.signals.connect(self.item_dropped, signal=signals.item_dropped)
        crawler.signals.connect(self.spider_closed, signal=signals.spider_closed)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> SteeringSpiderMiddleware:
        return cls(crawler, crawl_steering(crawler))

    @property
    def stats(self) -> Any:
        return self.crawler.stats

    async def process_spider_output(self, response: Response, result: AsyncIterator[Any]) -> AsyncIterator[Any]:
        page = urldefrag(response.url).url
        site = site_key(page)
        self.steering.fetched(page)
        anchors: dict[str, Anchor] | None = None
        mode = self.steering.mode
        items = False
        async for output in result:
            if not isinstance(output, Request):
                items = True
            elif (
                not output.meta.get(META_UNSTEERED)
                and site_key(output.url) == site
                and output.url.startswith(("http://", "https://"))
            ):
                if anchors is None:
                    anchors = page_anchors(response)
                url = urldefrag(output.url).url
                decision = self.steering.link(page, url, anchors.get(url, NO_ANCHOR))
                if decision.new:
                    self.stats.inc_value(f"{PREFIX}links/{decision.role.role}")
                    if decision.prune:
                        self.stats.inc_value(f"{PREFIX}pruned/{decision.prune}")
                if decision.probe:
                    self.stats.inc_value(f"{PREFIX}probes")
                if mode == "prune" and decision.prune:
                    continue
                output.meta.setdefault(META_ROLE, decision.role.role)
                if mode != "observe":
                    output.priority += decision.priority
            yield output
        self._count(self.steering.streamed(page))
        if not items:  # a page without items (a 404) stores nothing, and teaches nothing
            self._count(self.steering.outcome(page, False, judged=False))

    def item_scraped(self, item: Any, response: Response | None = None) -> None:
        self._outcome(response, True)

    def item_dropped(self, item: Any, response: Response | None = None, exception: Any = None) -> None:
        self._outcome(response, isinstance(exception, DuplicateArticle))

    def _outcome(self, response: Response | None, article: bool) -> None:
        if response is not None:
            self._count(self.steering.outcome(urldefrag(response.url).url, article))

    def _count(self, outcome: Any) -> None:
        if outcome is None:
            return
        self.pages += 1
        self.articles += outcome.article
        self.stats.inc_value(f"{PREFIX}pages")
        if outcome.article:
            self.stats.inc_value(f"{PREFIX}articles")
        if outcome.barren:
            self.stats.inc_value(f"{PREFIX}wasted_pages", outcome.barren)
        if outcome.pruned_but_article:
            self.stats.inc_value(f"{PREFIX}shadow/pruned_but_article")

    def spider_closed(self) -> None:
        if self.articles:
            self.stats.set_value(f"{PREFIX}pages_per_article", round(self.pages / self.articles, 3))
        self.stats.set_value(f"{PREFIX}sites_remembered", len(self.steering))
