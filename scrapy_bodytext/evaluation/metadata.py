"""Page metadata (title, authors, dates, ...) scored against the labels a corpus carries (``meta``),
for our reader and for peers (trafilatura's ``extract_metadata``, htmldate's ``find_date``) on the
same pages.

Per field, a page's score is 1/0 for exact fields or an F1 for name lists; a missing value scores 0
(so the mean is an accuracy over labelled pages) and the share of labelled pages where the method
gave any value is its coverage. Labels are the source's (see the corpus README, "Metadata labels").
"""

from __future__ import annotations

import statistics
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..api import extract_with_config
from ..config import ExtractConfig
from ..page.decoding import decode
from .corpus import LabelledPage
from .metrics import bag_of_words, prf
from .report import fmt, markdown_table

#: values a metadata method gives for one page (all optional)
GUESSED = ("title", "authors", "published", "description", "site_name", "language", "canonical_url", "tags")


@dataclass(frozen=True, slots=True)
class MetadataGuess:
    """What one method read from one page."""

    title: str | None = None
    authors: tuple[str, ...] = ()
    published: str | None = None  # ISO 8601 date or date-time
    description: str | None = None
    site_name: str | None = None
    language: str | None = None
    canonical_url: str | None = None
    tags: tuple[str, ...] = ()


MetadataRunner = Callable[[LabelledPage], MetadataGuess]


# --- comparisons -------------------------------------------------------------------------------------


def normalized(text: str) -> str:
    """Whitespace collapsed, case folded: the form two values are compared in."""
    return " ".join(text.split()).casefold()


def same_text(label: str, guess: str | None) -> float:
    return float(guess is not None and normalized(guess) == normalized(label))


def names_f1(label: Sequence[str], guess: Sequence[str]) -> float:
    """F1 of two sets of names (each normalized); an empty guess scores 0."""
    wanted = {normalized(name) for name in label if name.strip()}
    found = {normalized(name) for name in guess if name.strip()}
    if not wanted or not found:
        return float(not wanted and not found)
    both = len(wanted & found)
    return 2 * both / (len(wanted) + len(found))


def byline_f1(label: str, guess: Sequence[str]) -> float:
    """Token F1 of the author names against a free byline string (case folded)."""
    return prf(bag_of_words(" ".join(guess).casefold()), bag_of_words(label.casefold()))[2]


def same_day(label: str, guess: str | None) -> float:
    """The same calendar date as each value states it (no time-zone conversion)."""
    return float(bool(guess) and guess.strip()[:10] == label.strip()[:10])


def same_language(label: str, guess: str | None) -> float:
    """The same primary language subtag (``en-US`` matches ``en``)."""

    def primary(tag: str) -> str:
        return tag.strip().replace("_", "-").split("-")[0].casefold()

    return float(bool(guess) and primary(guess) == primary(label))


def same_url(label: str, guess: str | None) -> float:
    return float(bool(guess) and guess.strip().rstrip("/") == label.strip().rstrip("/"))


@dataclass(frozen=True, slots=True)
class Field:
    """One column of the report: the label key it is scored against and the guessed value used."""

    column: str
    label: str
    guessed: str
    score: Callable[[Any, Any], float]


FIELDS = (
    Field("title exact", "title", "title", same_text),
    Field("authors set-F1", "authors", "authors", names_f1),
    Field("byline token-F1", "byline", "authors", byline_f1),
    Field("published day", "published", "published", same_day),
    Field("description exact", "description", "description", same_text),
    Field("site name exact", "site_name", "site_name", same_text),
    Field("language", "language", "language", same_language),
    Field("canonical URL", "canonical_url", "canonical_url", same_url),
    Field("tags set-F1", "topics", "tags", names_f1),
)


# --- methods -----------------------------------------------------------------------------------------


def page_text(page: LabelledPage) -> str:
    """The page decoded as our extractor decodes it: what peers are given, so all read the same text."""
    return decode(page.body, encoding=page.charset)[0]


def our_metadata_runner(config: ExtractConfig) -> MetadataRunner:
    """``extract()`` as a crawl calls it; the result's metadata values."""

    def run(page: LabelledPage) -> MetadataGuess:
        result = extract_with_config(page.body, config, url=page.url, encoding=page.charset)
        return MetadataGuess(
            **{name: getattr(result, name) or None for name in GUESSED if name not in ("authors", "tags")},
            authors=result.authors,
            tags=result.tags,
        )

    return run


def trafilatura_runner() -> MetadataRunner:
    """``trafilatura.extract_metadata`` with its defaults (authors are given as one ``;``-joined string)."""
    from trafilatura import extract_metadata

    def run(page: LabelledPage) -> MetadataGuess:
        found = extract_metadata(page_text(page), default_url=page.url)
        if found is None:
            return MetadataGuess()
        return MetadataGuess(
            title=found.title,
            authors=_split_names(found.author),
            published=found.date,
            description=found.description,
            site_name=found.sitename,
            language=found.language,
            canonical_url=found.url,
            tags=tuple(found.tags or ()),
        )

    return run


def htmldate_runner() -> MetadataRunner:
    """``htmldate.find_date`` asked for the original (publication) date, extensive search, with the URL."""
    from htmldate import find_date

    def run(page: LabelledPage) -> MetadataGuess:
        return MetadataGuess(
            published=find_date(page_text(page), url=page.url, original_date=True, extensive_search=True)
        )

    return run


def _split_names(text: str | None) -> tuple[str, ...]:
    return tuple(name.strip() for name in (text or "").split(";") if name.strip())


@dataclass(frozen=True, slots=True)
class MetadataMethod:
    """A method the report compares: how to build its runner (``None``: not installed) and the
    guessed values it attempts (others are shown as ``-``)."""

    name: str
    build: Callable[[], MetadataRunner]
    attempts: frozenset[str] = frozenset(GUESSED)


def peer_methods() -> tuple[list[MetadataMethod], list[str]]:
    """(peers importable here, names of those that are not installed)."""
    import importlib.util

    peers = [
        MetadataMethod("trafilatura", trafilatura_runner),
        MetadataMethod("htmldate", htmldate_runner, frozenset({"published"})),
    ]
    present = [p for p in peers if importlib.util.find_spec(p.name) is not None]
    return present, [p.name for p in peers if p not in present]


# --- running and aggregation -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PageMetadataScore:
    """One method on one labelled page: per labelled field, (score, a value was given)."""

    id: str
    source: str
    is_article: bool
    fields: dict[str, tuple[float, bool]]
    seconds: float
    error: str | None = None


def score_guess(page: LabelledPage, guess: MetadataGuess, attempts: frozenset[str]) -> dict[str, tuple[float, bool]]:
    scores = {}
    for field in FIELDS:
        label = (page.meta or {}).get(field.label)
        if not label or field.guessed not in attempts:
            continue
        value = getattr(guess, field.guessed)
        scores[field.column] = (field.score(label, value), bool(value))
    return scores


def run_metadata(
    method: MetadataMethod,
    pages: Iterable[LabelledPage],
    progress: Callable[[int, int], None] | None = None,
    total: int = 0,
) -> list[PageMetadataScore]:
    """Score ``method`` on every page that carries labels; an exception is a page with no values."""
    runner = method.build()
    scores = []
    for done, page in enumerate(pages, 1):
        started = time.process_time()
        error = None
        try:
            guess = runner(page)
        except Exception as exc:  # noqa: BLE001 - a crash is a figure, not the end of the run
            guess, error = MetadataGuess(), f"{type(exc).__name__}: {exc}"[:200]
        seconds = time.process_time() - started
        scores.append(
            PageMetadataScore(
                page.id, page.source, page.is_article, score_guess(page, guess, method.attempts), seconds, error
            )
        )
        if progress is not None:
            progress(done, total)
    return scores


def aggregate(scores: Sequence[PageMetadataScore]) -> dict[str, dict[str, float | int]]:
    """Per field: labelled pages, mean score, coverage (share of them with a value)."""
    found: dict[str, list[tuple[float, bool]]] = defaultdict(list)
    for page in scores:
        for column, pair in page.fields.items():
            found[column].append(pair)
    return {
        field.column: {
            "pages": len(found[field.column]),
            "score": statistics.fmean(s for s, _ in found[field.column]),
            "coverage": sum(1 for _, given in found[field.column] if given) / len(found[field.column]),
        }
        for field in FIELDS
        if found[field.column]
    }


def summarize_metadata(scores: Sequence[PageMetadataScore]) -> dict[str, Any]:
    """JSON-ready figures of one method: over labelled article pages, and per source (all labelled pages)."""
    articles = [s for s in scores if s.is_article]
    by_source: dict[str, list[PageMetadataScore]] = defaultdict(list)
    for s in scores:
        by_source[s.source].append(s)
    return {
        "pages": len(scores),
        "articles": len(articles),
        "fields": aggregate(articles),
        "ms_per_page": 1000 * statistics.fmean(s.seconds for s in scores) if scores else None,
        "errors": sum(1 for s in scores if s.error),
        "by_source": {
            source: {"pages": len(group), "articles": sum(1 for s in group if s.is_article), "fields": aggregate(group)}
            for source, group in sorted(by_source.items())
        },
    }


def labelled(pages: Iterable[LabelledPage]) -> list[LabelledPage]:
    return [page for page in pages if page.meta]


# --- tables ------------------------------------------------------------------------------------------


def _cell(figure: Mapping[str, float] | None) -> str:
    return "-" if figure is None else f"{fmt(figure['score'])} / {fmt(figure['coverage'], 2)}"


def _columns(figures: Mapping[str, Mapping[str, Any]], key: Callable[[Mapping[str, Any]], Mapping]) -> list[str]:
    present = {column for f in figures.values() for column in key(f)}
    return [field.column for field in FIELDS if field.column in present]


def metadata_table(figures: Mapping[str, Mapping[str, Any]]) -> str:
    """One row per method over the labelled article pages; a header cell names the labelled pages."""
    columns = _columns(figures, lambda f: f["fields"])
    counts = {c: max(f["fields"][c]["pages"] for f in figures.values() if c in f["fields"]) for c in columns}
    headers = ["method", *(f"{c} ({counts[c]})" for c in columns), "ms/page", "errors"]
    rows = [
        [name, *(_cell(f["fields"].get(c)) for c in columns), fmt(f["ms_per_page"], 1), fmt(f["errors"])]
        for name, f in figures.items()
    ]
    return markdown_table(headers, rows)


def metadata_source_table(figures: Mapping[str, Mapping[str, Any]]) -> str:
    """Rows of source x method; each source first gives its labelled pages per field."""
    columns = _columns(figures, lambda f: {c for s in f["by_source"].values() for c in s["fields"]})
    sources: dict[str, tuple[int, int]] = {}
    for f in figures.values():
        for source, s in f["by_source"].items():
            sources[source] = (s["pages"], s["articles"])
    rows = []
    for source in sorted(sources, key=lambda s: (-sources[s][1], -sources[s][0], s)):
        pages, articles = sources[source]
        kind = f"{pages} page{'s' * (pages != 1)}"
        if articles != pages:
            kind += f", {pages - articles} non-article{'s' * (pages - articles != 1)}"
        counts = {}
        for f in figures.values():
            for c, figure in f["by_source"].get(source, {}).get("fields", {}).items():
                counts[c] = max(counts.get(c, 0), figure["pages"])
        rows.append([f"{source} ({kind})", "labelled", *(str(counts.get(c, "-")) for c in columns)])
        for name, f in figures.items():
            fields = f["by_source"].get(source, {}).get("fields", {})
            rows.append(["", name, *(_cell(fields.get(c)) for c in columns)])
    return markdown_table(["source", "method", *columns], rows)


def format_metadata_evaluation(figures: Mapping[str, Mapping[str, Any]]) -> str:
    """The report ``scrapy-bodytext evaluate --metadata`` prints."""
    return "\n".join(
        [
            "Cells: score / coverage. Score: title, description, site name exact after whitespace and case "
            "normalisation; authors set-F1 of the names; byline token-F1 of the names against a free byline; "
            "published: same calendar day as each states it; language: same primary subtag; canonical URL: "
            "equal up to a trailing slash; tags set-F1 against the labelled topics. A missing value scores 0; "
            "coverage is the share of labelled pages with a value. '-': not labelled or not attempted.",
            "",
            "Labelled article pages:",
            "",
            metadata_table(figures),
            "",
            "Per source (all labelled pages):",
            "",
            metadata_source_table(figures),
        ]
    )
