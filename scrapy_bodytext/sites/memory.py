"""Site memory: what the confident verdicts of a site's pages say about its other pages, bounded
(the sites learned least recently are forgotten first), in this process. ``RedisSiteMemory``
(``redis_memory``) is the same shared through Redis."""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Mapping, Sequence

from ..config import DEFAULT_THRESHOLD
from ..extractors.bodytext.page import MIN_BODY_CHARS
from ..result import ExtractionResult, Reason
from ..stores import StoreUnavailable
from . import boilerplate
from .domains import site_key
from .evidence import STORED, PageKeys, explain, make_mark, parse_mark, read_counts, site_links
from .verdict import SiteVerdict, Weights, features, load_weights

#: sites remembered by default
DEFAULT_MAX_SITES = 10_000
#: why a page is capped whose text, without the site's furniture lines, is no article's
ONLY_FURNITURE = "only the site's furniture"


class LocalStore:
    """Each site's fields (counters, marks) in a dict, the sites in the order they were last learned."""

    def __init__(self, max_sites: int) -> None:
        if max_sites < 1:
            raise ValueError(f"max_sites must be at least 1, got {max_sites}")
        self.max_sites = max_sites
        self.sites: OrderedDict[str, dict[str, int | str]] = OrderedDict()

    def read(self, site: str, names: Sequence[str]) -> list[int | str | None]:
        fields = self.sites.get(site, {})
        return [fields.get(name) for name in names]

    def update(
        self, site: str, increments: Mapping[str, int], values: Mapping[str, str], unless: str | None = None
    ) -> bool:
        """Add ``increments`` and set ``values`` in the site's fields, unless the field ``unless`` is
        set already (False then); the site becomes the newest, the oldest beyond the bound go."""
        if unless is not None and unless in self.sites.get(site, {}):
            return False
        fields = self.sites.pop(site, None) or {}
        for name, step in increments.items():
            fields[name] = int(fields.get(name, 0)) + step
        fields.update(values)
        self.sites[site] = fields
        while len(self.sites) > self.max_sites:
            self.sites.popitem(last=False)
        return True

    def forget(self) -> None:
        self.sites.clear()

    def __len__(self) -> int:
        return len(self.sites)

    def fields(self, site: str) -> dict[str, int | str]:
        """Every field of the site (empty when the site is not remembered)."""
        return dict(self.sites.get(site, {}))

    def site_names(self) -> list[str]:
        """The sites remembered, the least recently learned first."""
        return list(self.sites)


class SiteMemory:
    """Counts of a site's confident verdicts per URL shape and template, and the site's furniture
    lines; ``judge`` weighs them with a page's own probability, ``learn`` adds a page's confident
    verdict, ``decide`` does both. The same pages in the same order give the same verdicts."""

    def __init__(self, max_sites: int = DEFAULT_MAX_SITES, *, weights: Weights | None = None, store=None) -> None:
        self.weights = weights or load_weights()
        self.store = store if store is not None else LocalStore(max_sites)

    # ------------------------------------------------------------------ verdicts
    def judge(
        self, url: str, result: ExtractionResult, *, complete: bool = True, threshold: float = DEFAULT_THRESHOLD
    ) -> SiteVerdict:
        """The page's verdict after its site's evidence (an article from ``threshold`` on); reads the
        memory, never changes it, and never counts the page itself (a page learned before is taken
        back out of its counts).

        The site's evidence never raises a page that has no article text of its own (``no_article_text``)
        or whose body did not arrive whole (``complete=False``): a broken page of an article's URL
        shape is still a broken page. Such a page may be lowered, is settled at once, and teaches
        nothing. A page whose text is all the site's furniture lines (what the memory strips from its
        articles) is capped the same way and is never an article."""
        keys = PageKeys.of(url, result)
        page_probability = result.article_probability
        if not keys.site or result.reason is not Reason.OK:
            return SiteVerdict(page_probability, page_probability, result.is_article, True, keys.site)
        capped = "" if complete else "incomplete body"
        if not capped and no_article_text(result.text):
            capped = "no article text"
        if not capped and result.output_format == "text" and no_article_text(self.strip_boilerplate(url, result.text)):
            capped = ONLY_FURNITURE
        links = site_links(keys, result.links)
        counts, _ = read_counts(keys, links, lambda names: self.store.read(keys.site, names))
        weights = self.weights
        probability = weights.site_probability(page_probability, features(page_probability, counts), counts.site[0])
        # a page the page judge calls a non-article with confidence is dropped at once; any other waits
        # for its site's evidence (a home page or a list judged an article with confidence is common)
        settled = page_probability <= 1 - weights.confident or sum(counts.site) >= weights.min_evidence
        if capped:
            probability, settled = min(probability, page_probability), True
        if capped == ONLY_FURNITURE:  # the memory knows the whole text is the site's: never an article
            probability = min(probability, math.nextafter(threshold, 0.0))
        why = (
            f"{capped}: never raised by its site"
            if capped
            else explain(page_probability, probability, counts, weights.weights)
        )
        return SiteVerdict(
            probability,
            page_probability,
            probability >= threshold and bool(result.text),
            settled,
            keys.site,
            keys,
            counts,
            capped,
            sum(links.values()),
            why,
        )

    def teaches(self, result: ExtractionResult, verdict: SiteVerdict) -> bool | None:
        """What a page's verdict teaches its site: True (a confident article), False (a confident
        non-article) or None (nothing). Guards against a site's confident mistakes: a page whose
        selection links densely to many pages of its own site (a list of posts) never teaches that
        it is an article, a confident article that an established site (``min_evidence`` confident
        articles) overturns teaches nothing, and a non-article teaches only when its site's evidence
        agrees; the rest is left to the counts being read as shares of the site's articles, where early
        mistakes stay a minority that later posts outweigh (refusing what a young site overturns would
        lock it into its first mistakes, and out of a second kind of post that comes late).
        Read from the verdict's typed fields, never from its display ``evidence``; the threshold a
        caller decides with plays no part."""
        weights = self.weights
        if result.reason is not Reason.OK or verdict.capped or verdict.counts is None:
            return None
        if verdict.page_probability >= weights.confident:
            if verdict.counts.site[0] >= weights.min_evidence and verdict.probability < weights.agreement:
                return None  # an established site overturns it: the page judge's error, not evidence
            links = verdict.site_links
            listing = links >= weights.teaching_links and links * 1000 >= weights.teaching_density * len(result.text)
            return None if listing else True
        if verdict.page_probability <= 1 - weights.confident and verdict.probability < weights.agreement:
            return False
        return None

    def learn(self, url: str, result: ExtractionResult, verdict: SiteVerdict) -> bool:
        """Record the page's confident verdict (nothing when it is not confident, or when the page
        was learned before); True when something was recorded."""
        keys = PageKeys.of(url, result)
        if not keys.site:
            return False
        article = self.teaches(result, verdict)
        if article is None:
            return False
        stored, mark = self.store.read(keys.site, [STORED, keys.mark])
        if mark:
            return False
        increments = dict.fromkeys(keys.counters(article), 1)
        count_lines = article and int(stored or 0) < boilerplate.SAMPLE_ARTICLES and bool(result.text)
        if count_lines:
            increments[STORED] = 1
            increments.update(dict.fromkeys(boilerplate.counted_lines(result.text), 1))
        mark = make_mark(article, keys.template, count_lines, keys.signals if article else ())
        return self.store.update(keys.site, increments, {keys.mark: mark}, unless=keys.mark)

    def decide(
        self, url: str, result: ExtractionResult, *, complete: bool = True, threshold: float = DEFAULT_THRESHOLD
    ) -> SiteVerdict:
        """``judge`` then ``learn``: the usual call, once per page, when pages do not wait (what
        ``extract(..., memory=...)`` calls; a crawl's pages go through ``waiting.WaitingRoom``). A
        shared store that is unavailable (its guard said so once) leaves the page its own verdict and
        misses the page."""
        try:
            verdict = self.judge(url, result, complete=complete, threshold=threshold)
        except StoreUnavailable as exc:
            return own_verdict(url, result, str(exc))
        try:
            self.learn(url, result, verdict)
        except StoreUnavailable:
            pass  # the verdict stands; the memory misses one page
        return verdict

    # ------------------------------------------------------------------ furniture
    def strip_boilerplate(self, url: str, text: str) -> str:
        """``text`` without the lines that recur on many of the site's stored articles (the page's
        own lines never count: a page learned before is taken back out), unless a line sits inside a
        run of the article's prose. Lines are those of the plain-text output (one block a line)."""
        keys = PageKeys.of(url, _NO_RESULT)
        lines = text.splitlines()
        if not keys.site or not lines:
            return text
        fields = [boilerplate.line_key(line) if line.strip() else "" for line in lines]
        names = sorted({name for name in fields if name})
        try:
            values = self.store.read(keys.site, [STORED, keys.mark, *names])
        except StoreUnavailable:
            return text  # the furniture cannot be read now: the text stays whole
        stored, mark = int(values[0] or 0), values[1]
        counts = {name: int(value or 0) for name, value in zip(names, values[2:])}
        if mark and parse_mark(str(mark))[2]:  # its own lines were counted: take them back
            stored -= 1
            own = set(boilerplate.counted_lines(text))
            counts = {name: count - (name in own) for name, count in counts.items()}
        share, minimum = self.weights.boilerplate_share, self.weights.boilerplate_count
        recurring = [bool(name) and boilerplate.is_recurring(counts[name], stored, share, minimum) for name in fields]
        if not any(recurring):
            return text
        drop = boilerplate.furniture_lines(lines, recurring)
        return "\n".join(line for line, gone in zip(lines, drop) if not gone)

    def forget(self) -> None:
        """Forget every site."""
        self.store.forget()


def own_verdict(url: str, result: ExtractionResult, unavailable: str = "") -> SiteVerdict:
    """The page's own verdict, settled: what a page gets when its site's memory cannot be asked."""
    page = result.article_probability
    return SiteVerdict(page, page, result.is_article, True, site_key(url), unavailable=unavailable)


def no_article_text(text: str) -> bool:
    """Whether a page's main text is too short to be an article's (under the default method's
    ``MIN_BODY_CHARS`` characters, white space folded): empty, a title, a line of furniture."""
    return len(" ".join(text.split())) < MIN_BODY_CHARS


_NO_RESULT = ExtractionResult("", 0.0, False, "")
