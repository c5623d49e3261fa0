"""``extract()``: the one pure entry point (no Scrapy import) used by the plugin, the command line
and any other engine. It never raises because of the input: every page gets a result and a reason."""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from dataclasses import replace
from typing import Any, Protocol

from . import extractors
from .config import DEFAULT_THRESHOLD, ExtractConfig
from .metadata import PageMetadata, read_declared, read_metadata, result_values
from .output.formats import shows_text, write_selection
from .page.claims import read_claims
from .page.decoding import decode
from .page.document import Document
from .page.parse import ParsedPage, parse_html
from .page.reasons import Deadline
from .page.sniff import looks_binary
from .result import ExtractionResult, LimitExceeded, Reason, empty_result

_DEFAULT_CONFIG: ExtractConfig | None = None


class SiteMemoryLike(Protocol):
    """What ``extract(..., memory=...)`` calls: ``scrapy_bodytext.sites.SiteMemory`` (or its Redis
    form) decides a page with its site's evidence and takes out the site's furniture lines."""

    def decide(self, url: str, result: ExtractionResult, *, complete: bool = True, threshold: float = ...) -> Any: ...

    def strip_boilerplate(self, url: str, text: str) -> str: ...


def default_config() -> ExtractConfig:
    global _DEFAULT_CONFIG
    if _DEFAULT_CONFIG is None:
        _DEFAULT_CONFIG = ExtractConfig()
    return _DEFAULT_CONFIG


def extract(
    body: bytes | str,
    *,
    extractor: str | None = None,
    url: str | None = None,
    encoding: str | None = None,
    content_type: str | None = None,
    config: ExtractConfig | None = None,
    threshold: float | None = None,
    options: Mapping[str, Any] | None = None,
    output_format: str | None = None,
    links: bool | None = None,
    comments: bool | None = None,
    captions: str | None = None,
    memory: SiteMemoryLike | None = None,
) -> ExtractionResult:
    """Main text and article probability of one page.

    ``body`` is the raw page (``bytes``, decoded here once: BOM, declared charset, detection) or
    already decoded ``str``. ``extractor`` names the method (``None``: the recommended default);
    ``encoding`` is an encoding already known (e.g. Scrapy's ``response.encoding``). ``threshold``
    and ``options`` (that extractor's options) override ``config`` for this call, and so do
    ``output_format`` ("text", "markdown" or "html": how the main text is written) and ``links``
    (write its links, in Markdown and HTML), and ``comments`` (give the reader comments apart, in
    the result's ``comments``; off by default), and ``captions`` ("apart": the article's picture
    captions in the result's ``captions``, the default; "inline": in the main text where they
    stand). ``memory`` (a ``scrapy_bodytext.sites.SiteMemory``,
    with ``url`` given) weighs the evidence of the site's pages seen before with the page's own: the
    result's probability, ``is_article`` and ``page_type`` are then the site's verdict, the text of
    an article loses the site's furniture lines (plain text only), ``debug["site_evidence"]`` says
    why, and the page is learned. Without it the result depends on this page alone. Configuration
    errors (unknown extractor, option or format) raise ``ValueError``; nothing about the page ever
    raises.
    """
    config = config or default_config()
    if extractor is not None and extractor != config.extractor:
        config = config.replace(extractor=extractor)
    if threshold is not None:
        config = config.replace(threshold=threshold)
    if options is not None:
        config = config.replace(options={**config.options, config.extractor: options})
    if output_format is not None and output_format != config.output_format:
        config = config.replace(output_format=output_format)
    if links is not None and links != config.links:
        config = config.replace(links=links)
    if comments is not None and comments != config.comments:
        config = config.replace(comments=comments)
    if captions is not None and captions != config.captions:
        config = config.replace(captions=captions)
    result = extract_with_config(body, config, url=url, encoding=encoding, content_type=content_type)
    return with_site_memory(result, memory, url, config.threshold) if memory is not None and url else result


def with_site_memory(
    result: ExtractionResult, memory: SiteMemoryLike, url: str, threshold: float | None = None
) -> ExtractionResult:
    """``result`` decided with its site's evidence (the page is learned too) at ``threshold`` (None:
    the default threshold) and, when it stays an article written as plain text, without the site's
    furniture lines."""
    threshold = DEFAULT_THRESHOLD if threshold is None else threshold
    return apply_site_verdict(result, memory.decide(url, result, threshold=threshold), memory, url)


#: probabilities closer than this are the same (the site's combination may round the page's own)
SAME_PROBABILITY = 1e-9


def apply_site_verdict(result: ExtractionResult, verdict: Any, memory: SiteMemoryLike, url: str) -> ExtractionResult:
    """``result`` as its site's ``verdict`` has it, the one rule for ``extract(..., memory=...)`` and the
    crawl: probability, verdict, type, and an article's plain text without the site's furniture lines
    (a page the site may not raise, ``verdict.capped``, keeps its text whole); where the site changes
    neither the verdict nor the probability, the page keeps its own figures to the last digit.
    ``debug["site_evidence"]`` says what was weighed, with ``decided_by``: "site" when the site's
    evidence changed the page's probability or verdict, else "page"."""
    if result.reason is not Reason.OK:
        return result
    is_article = bool(verdict.is_article)
    probability = float(verdict.probability)
    same = is_article == result.is_article and abs(probability - result.article_probability) < SAME_PROBABILITY
    evidence = {**verdict.evidence, "decided_by": "page" if same else "site"}
    evidence.setdefault("why", "the page's own verdict")
    text = result.text
    if is_article and result.output_format == "text" and not getattr(verdict, "capped", ""):
        text = memory.strip_boilerplate(url, text)
    if same:
        return replace(result, text=text, debug={**result.debug, "site_evidence": evidence})
    page_type = result.page_type
    if is_article != result.is_article:
        page_type = "article" if is_article else ("other" if page_type == "article" else page_type)
    if page_type == "article" or result.page_type == "article":
        type_probability = probability if page_type == "article" else 1.0 - probability
    else:  # the same type among the others: its share of what is not the article's, rescaled
        rest = 1.0 - result.article_probability
        share = result.page_type_probability / rest if rest > 0 else 1.0
        type_probability = min(1.0, share * (1.0 - probability))
    return replace(
        result,
        text=text,
        article_probability=probability,
        is_article=is_article,
        page_type=page_type,
        page_type_probability=type_probability,
        debug={**result.debug, "site_evidence": evidence},
    )


def load_document(body: bytes | str, config: ExtractConfig, **page: Any) -> Document:
    """The ``Document`` of a page: ``read_page`` (same arguments) without the parse report."""
    return read_page(body, config, **page)[0]


def read_page(
    body: bytes | str,
    config: ExtractConfig,
    *,
    url: str | None = None,
    encoding: str | None = None,
    content_type: str | None = None,
    deadline: Deadline | None = None,
    with_metadata: bool = False,
) -> tuple[Document, ParsedPage, PageMetadata | None]:
    """Decode (bytes only), parse and clean a page into the ``Document`` every method shares, and
    tell what parsing took (a replay, a depth cut); ``with_metadata`` also reads the page's metadata
    from the tree before it is cleaned (None otherwise).

    Raises ``LimitExceeded`` carrying the ``Reason`` when the page is skipped (empty, binary, too
    large, undecodable, unparsable, over a limit); ``.encoding`` on it tells what was used.
    """
    used_encoding = encoding
    markup: str | bytes | None = None
    if isinstance(body, (bytes, bytearray, memoryview)):
        body = bytes(body)
        if not body or body.isspace():
            raise LimitExceeded(Reason.EMPTY, "empty body")
        if len(body) > config.max_body_size:
            raise LimitExceeded(Reason.TOO_LARGE, f"{len(body)} bytes > {config.max_body_size}")
        if looks_binary(body):
            raise LimitExceeded(Reason.NOT_HTML, "binary content")
        text, used_encoding = decode(body, encoding=encoding, content_type=content_type)
        if used_encoding in ("utf-8", "ascii") and "\ufffd" not in text:
            markup = body  # valid UTF-8 already: parse the bytes as they are, no re-encoding
    else:
        text = body
        if len(text) > config.max_body_size:
            raise LimitExceeded(Reason.TOO_LARGE, f"{len(text)} characters > {config.max_body_size}")
    if not text or text.isspace():
        raise LimitExceeded(Reason.EMPTY, "no text", used_encoding)
    if text.count("\ufffd") > 0.2 * len(text):
        raise LimitExceeded(Reason.UNDECODABLE, "mostly invalid byte sequences", used_encoding)
    try:
        parsed = parse_html(text if markup is None else markup, max_nodes=config.max_nodes, deadline=deadline)
        if parsed is None:
            raise LimitExceeded(Reason.EMPTY, "no elements and no text (only comments, declarations)")
        root = parsed.root
        declared = read_declared(root)  # one walk over the declaring tags, before Document() cleans the tree
        metadata = read_metadata(root, url, declared) if with_metadata else None
        doc = Document(
            root,
            url=url,
            encoding=used_encoding,
            max_nodes=config.max_nodes,
            deadline=deadline,
            claims=read_claims(root, declared),
        )
        return doc, parsed, metadata
    except LimitExceeded as exc:
        exc.encoding = used_encoding
        raise


def extract_with_config(
    body: bytes | str,
    config: ExtractConfig,
    *,
    url: str | None = None,
    encoding: str | None = None,
    content_type: str | None = None,
) -> ExtractionResult:
    """``extract()`` with a ready configuration: the form used in crawls and worker processes."""
    if not isinstance(body, (bytes, bytearray, memoryview, str)):
        raise TypeError(f"body must be bytes or str, got {type(body).__name__}")
    name, output_format = config.extractor, config.output_format
    started = time.perf_counter()
    try:
        doc, parsed, metadata = read_page(
            body,
            config,
            url=url,
            encoding=encoding,
            content_type=content_type,
            deadline=Deadline.after(config.time_budget),
            with_metadata=config.metadata,
        )
        if not doc.texts:  # framesets, SVG-only or script-only pages: nothing for any method to weigh
            return replace(
                empty_result(
                    name, Reason.EMPTY, "no text in the page body", encoding=doc.encoding, output_format=output_format
                ),
                **result_values(metadata, doc.lang or doc.meta_lang, None),
            )
        found = extractors.load(name).extract(doc, config.extractor_options)
        shown = found.slots
        if config.captions == "inline" and found.caption_slots:
            shown = sorted({*found.slots, *found.caption_slots})
        caption_slots = found.caption_slots if config.captions == "inline" else ()
        text = write_selection(doc, shown, output_format, links=config.links, captions=caption_slots)
        comments = (
            write_selection(doc, found.comment_slots, output_format, links=config.links) if config.comments else ""
        )
        plain_text = write_selection(doc, shown) if config.plain_text and output_format != "text" else ""
        captions = write_selection(doc, found.caption_slots) if config.captions == "apart" else ""
    except LimitExceeded as exc:
        return empty_result(name, exc.reason, exc.detail, encoding=exc.encoding, output_format=output_format)
    except Exception as exc:  # noqa: BLE001 - a bug in a method or a writer must not stop a crawl
        return empty_result(name, Reason.ERROR, f"{type(exc).__name__}: {exc}"[:300], output_format=output_format)
    used_encoding = doc.encoding
    probability = found.probability
    if not isinstance(probability, (int, float)) or math.isnan(probability):
        probability = 0.0
    probability = min(1.0, max(0.0, float(probability)))
    has_text = shows_text(doc, found.slots)  # the selection decides, the same in every format
    reason = Reason.OK if has_text else Reason.NO_MAIN_TEXT
    debug = dict(found.debug)
    debug["seconds"] = time.perf_counter() - started
    if parsed.depth_cut:
        debug["nesting_truncated"] = True
    is_article = probability >= config.threshold and has_text
    page_type = found.page_type if has_text and found.page_type else "article" if is_article else "other"
    if has_text and found.page_type and found.page_type_probability is not None:
        type_probability = min(1.0, max(0.0, float(found.page_type_probability)))
    else:  # a method that tells only articles apart: its type is as sure as its verdict
        type_probability = probability if page_type == "article" else 1.0 - probability
    return ExtractionResult(
        text=text,
        article_probability=probability,
        is_article=is_article,
        page_type=page_type,
        page_type_probability=type_probability,
        extractor=name,
        reason=reason,
        detail=found.detail,
        encoding=used_encoding,
        output_format=output_format,
        comments=comments,
        captions=captions,
        plain_text=plain_text,
        template=found.template,
        links=tuple(found.links),
        signals=tuple(found.signals),
        debug=debug,
        **result_values(metadata, doc.lang or doc.meta_lang, found.language),
    )
