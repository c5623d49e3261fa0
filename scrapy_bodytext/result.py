"""The small value every extraction returns, whatever the method or the input."""

from __future__ import annotations

from dataclasses import dataclass, field

from .page.reasons import SKIP_REASONS, LimitExceeded, Reason

__all__ = ["SKIP_REASONS", "ExtractionResult", "LimitExceeded", "Reason", "empty_result"]


@dataclass(frozen=True, slots=True)
class ExtractionResult:
    """Main text of a page and the probability that the page is an article.

    ``text`` holds the main text in ``output_format``: in "text", one paragraph, heading, list item
    or table row per line; in "markdown" or "html", those marked up as such. ``reason`` says why the
    result is what it is (``Reason.OK`` for a normal extraction); ``detail`` is a short free-text
    explanation for logs. ``is_article`` applies the threshold that was in force. ``page_type`` is
    the method's judgement of the kind of page (``article``, ``listing``, ``forum``, ``product``,
    ``collection``, ``documentation``, ``service`` or ``other``; methods that tell only articles apart
    give ``article`` for a page that ``is_article`` and ``other`` otherwise); the default method types
    a page ``article`` from its decision rule up, which may lie below the threshold;
    ``page_type_probability`` is how likely that type is (an article's: ``article_probability``; another
    type's: its share among the other types of what is not the article's probability). ``template``,
    ``links`` and ``signals`` are what site memory weighs (``scrapy_bodytext.sites``), filled by the default method
    only; they are inputs, not item values, so ``as_dict`` leaves them out.
    """

    text: str
    article_probability: float
    is_article: bool
    extractor: str
    page_type: str = "other"
    reason: Reason = Reason.OK
    detail: str = ""
    encoding: str | None = None
    language: str | None = None
    title: str = ""
    published: str | None = None  # ISO 8601 date or date-time
    modified: str | None = None  # ISO 8601 date or date-time
    authors: tuple[str, ...] = ()
    canonical_url: str | None = None
    site_name: str | None = None
    description: str | None = None
    image: str | None = None  # lead image URL
    tags: tuple[str, ...] = ()
    section: str | None = None
    comments: str = ""  # reader comments, when asked for (never part of ``text``)
    captions: str = ""  # the article's picture captions and credits, one per line (never part of ``text``)
    output_format: str = "text"  # how ``text`` is written: "text", "markdown" or "html"
    plain_text: str = ""  # ``text`` as plain text too, when asked for and ``output_format`` is another
    template: str = ""  # how the page is built around its selection, hashed short (site memory; not an item value)
    links: tuple[
        str, ...
    ] = ()  # absolute URLs of the links inside the selection, bounded (site memory; not an item value)
    page_type_probability: float = 0.0  # the probability of ``page_type`` (an article's: ``article_probability``)
    signals: tuple[str, ...] = ()  # page-level signals the page shows (site memory; not an item value)
    debug: dict = field(default_factory=dict, compare=False, repr=False)

    def value(self, name: str):
        """The result value called ``name`` (one of ``VALUE_NAMES``; ``main_text`` is ``text``)."""
        try:
            attribute = VALUE_NAMES[name]
        except KeyError:
            raise KeyError(f"unknown result value {name!r}; known: {', '.join(VALUE_NAMES)}") from None
        found = getattr(self, attribute)
        return found.value if isinstance(found, Reason) else found

    def as_dict(self) -> dict:
        """Plain JSON-ready mapping (debug left out; ``text`` under its own name)."""
        values = {"text": self.text}
        for name, attribute in VALUE_NAMES.items():
            if attribute != "text":
                found = self.value(name)
                values[name] = list(found) if isinstance(found, tuple) else found
        return values


#: names of the values of a result, as used by ``BODYTEXT_FIELDS`` and the command line's JSON
#: output, mapped to the ``ExtractionResult`` attribute that holds each
VALUE_NAMES: dict[str, str] = {
    "main_text": "text",
    "article_probability": "article_probability",
    "is_article": "is_article",
    "page_type": "page_type",
    "page_type_probability": "page_type_probability",
    "extractor": "extractor",
    "reason": "reason",
    "detail": "detail",
    "encoding": "encoding",
    "language": "language",
    "title": "title",
    "published": "published",
    "modified": "modified",
    "authors": "authors",
    "canonical_url": "canonical_url",
    "site_name": "site_name",
    "description": "description",
    "image": "image",
    "tags": "tags",
    "section": "section",
    "comments": "comments",
    "captions": "captions",
    "output_format": "output_format",
}


def empty_result(
    extractor: str,
    reason: Reason,
    detail: str = "",
    *,
    encoding: str | None = None,
    output_format: str = "text",
) -> ExtractionResult:
    """The result for a page with nothing to extract: empty text, probability 0."""
    return ExtractionResult(
        "", 0.0, False, extractor, reason=reason, detail=detail, encoding=encoding, output_format=output_format
    )
