"""A gallery of hostile and broken pages, generated here: for every extractor each one gets a result of
the right type, a probability in [0, 1], the reason expected for it, and an answer in bounded time."""

from __future__ import annotations

import functools
import gzip
import importlib
import io
import random
import time
import zipfile
from collections.abc import Callable
from dataclasses import dataclass

import pytest

from scrapy_bodytext import extract
from scrapy_bodytext.api import extract_with_config, load_document
from scrapy_bodytext.config import ExtractConfig
from scrapy_bodytext.extractors import EXTRACTORS, names
from scrapy_bodytext.output.text import render_slots
from scrapy_bodytext.page.parse import MAX_ATTRIBUTES, MAX_DEPTH
from scrapy_bodytext.result import ExtractionResult, LimitExceeded, Reason

#: generous per-page bound (the per-page budget is 5 s; methods check it between stages), in CPU time of
#: the extracting thread, as the budget counts it: other work on the machine cannot use it up
TIME_BOUND = 10.0
MB = 1024 * 1024
OK, NO_TEXT, EMPTY, NOT_HTML = Reason.OK, Reason.NO_MAIN_TEXT, Reason.EMPTY, Reason.NOT_HTML
JUDGED = frozenset({OK, NO_TEXT})
#: pages near the element limit may spend the whole time budget on a slow machine
JUDGED_OR_TIMED = JUDGED | {Reason.TIME_LIMIT}

SENTENCE = (
    "The city council approved the new budget on Monday after a long debate about schools, roads and "
    "the future of public transport in the region."
)
ARTICLE = (
    "<!DOCTYPE html><html><head><title>Budget approved</title></head><body>"
    '<div class="nav"><a href="/">Home</a> <a href="/news">News</a> <a href="/sport">Sport</a></div>'
    "<article><h1>Council approves the budget</h1>"
    + "".join(f"<p>{SENTENCE} Paragraph {n}.</p>" for n in range(12))
    + '</article><div class="footer"><a href="/about">About</a> <a href="/contact">Contact</a></div>'
    "</body></html>"
)
FR = "Le conseil municipal a approuvé le budget lundi après un long débat sur les écoles et les routes."
RU = "Городской совет утвердил новый бюджет в понедельник после долгих споров о школах и дорогах."
ZH = "市议会周一在就学校、道路和公共交通的未来进行长时间辩论后批准了新预算。"
JA = "市議会は月曜日、学校や道路、公共交通の将来について長い議論の末、新しい予算を承認した。"


def article(text: str = SENTENCE, *, head: str = "", paragraphs: int = 8) -> str:
    body = "".join(f"<p>{text}</p>" for _ in range(paragraphs))
    return f"<!DOCTYPE html><html><head>{head}<title>News</title></head><body><article>{body}</article></body></html>"


def random_bytes(size: int, seed: int, low: int = 0, high: int = 256) -> bytes:
    rnd = random.Random(seed)
    return bytes(rnd.randrange(low, high) for _ in range(size))


def zipped(html: str) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("index.html", html)
    return buffer.getvalue()


def minified_front_page(size: int) -> bytes:
    """A realistic list page written as one line of ``size`` bytes."""
    rnd = random.Random(11)
    words = SENTENCE.lower().replace(",", "").replace(".", "").split()
    blocks, total, n = [], 0, 0
    while total < size:
        text = " ".join(rnd.choice(words) for _ in range(50))
        block = (
            f'<div class="post p{n}"><h2><a href="/story/{n}">Story {n}</a></h2><p>{text}.</p>'
            f'<span class="meta">{n} comments</span></div>'
        )
        blocks.append(block)
        total += len(block)
        n += 1
    return (
        "<!DOCTYPE html><html><head><title>Front page</title></head><body>" + "".join(blocks) + "</body></html>"
    ).encode()


def links_table(rows: int) -> bytes:
    cells = "".join(f'<tr><td><a href="/page/{n}">Link number {n}</a></td></tr>' for n in range(rows))
    return f"<html><body><table>{cells}</table></body></html>".encode()


@dataclass(frozen=True)
class Case:
    name: str
    make: Callable[[], bytes | str]
    reasons: frozenset[Reason]  # a single reason where the outcome is determined
    encoding: str | None = None  # the encoding that must be found, where it is determined


CASES = [
    # not markup at all
    Case(
        "pdf",
        lambda: b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog >>\n" + random_bytes(20000, 1),
        frozenset({NOT_HTML}),
    ),
    Case("png", lambda: b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + random_bytes(20000, 2), frozenset({NOT_HTML})),
    Case("jpeg", lambda: b"\xff\xd8\xff\xe0\x00\x10JFIF\x00" + random_bytes(20000, 3), frozenset({NOT_HTML})),
    Case("gzip-html", lambda: gzip.compress(ARTICLE.encode()), frozenset({NOT_HTML})),
    Case("zip", lambda: zipped(ARTICLE), frozenset({NOT_HTML})),
    Case("random-bytes", lambda: random_bytes(65536, 4), frozenset({NOT_HTML})),
    Case("random-high-bytes", lambda: random_bytes(65536, 5, 0x80), JUDGED),
    # nothing there
    Case("empty-bytes", lambda: b"", frozenset({EMPTY})),
    Case("empty-str", lambda: "", frozenset({EMPTY})),
    Case("whitespace", lambda: b" \r\n\t \x0c \n" * 100, frozenset({EMPTY})),
    Case("bom-only", lambda: b"\xef\xbb\xbf", frozenset({EMPTY})),
    Case("comments-only", lambda: b"<!-- nothing -->" * 1000, frozenset({EMPTY})),
    Case("doctype-and-comments", lambda: "<!DOCTYPE html><!-- a --><?php echo 1 ?><!-- b -->", frozenset({EMPTY})),
    Case(
        "frameset",
        lambda: (
            b'<html><head><title>Frames</title></head><frameset cols="20%,80%">'
            b'<frame src="menu.html"><frame src="main.html"><noframes></noframes></frameset></html>'
        ),
        frozenset({EMPTY}),
    ),
    Case(
        "svg-only",
        lambda: (
            b'<svg xmlns="http://www.w3.org/2000/svg"><text x="0" y="15">' + b"Vector text " * 200 + b"</text></svg>"
        ),
        frozenset({EMPTY}),
    ),
    Case(
        "script-only-5MB",
        lambda: b"<html><body><script>" + b"var counter = 1; " * (5 * MB // 17) + b"</script></body></html>",
        frozenset({EMPTY}),
    ),
    # too big
    Case(
        "30MB-bytes",
        lambda: article(SENTENCE, paragraphs=30 * MB // (len(SENTENCE) + 7)).encode(),
        frozenset({Reason.TOO_LARGE}),
    ),
    Case(
        "30MB-str", lambda: article(SENTENCE, paragraphs=30 * MB // (len(SENTENCE) + 7)), frozenset({Reason.TOO_LARGE})
    ),
    Case(
        "500k-elements",
        lambda: b"<html><body>" + b"<span>x</span>" * 500_000 + b"</body></html>",
        frozenset({Reason.TOO_MANY_NODES}),
    ),
    Case(
        "mostly-invalid-str",
        lambda: "<html><body><p>" + "\ufffd" * 20000 + "</p></body></html>",
        frozenset({Reason.UNDECODABLE}),
    ),
    # deep, long, many
    Case(
        "100k-nested-divs",
        lambda: (ARTICLE[:-14] + "<div>" * 100_000 + SENTENCE + "</div>" * 100_000 + "</body></html>").encode(),
        JUDGED,
    ),
    Case(
        "nested-inline-90k",
        lambda: (
            "<html><body><p>" + "<b><i><span>" * 30_000 + SENTENCE + "</span></i></b>" * 30_000 + "</p></body></html>"
        ).encode(),
        JUDGED,
    ),
    Case(
        "nested-tables-1000",
        lambda: (
            "<html><body>" + "<table><tr><td>" * 1000 + SENTENCE + "</td></tr></table>" * 1000 + "</body></html>"
        ).encode(),
        JUDGED,
    ),
    Case(
        "unclosed-font-5000", lambda: ("<html><body>" + f"<font size=2>{SENTENCE}<br>" * 5000).encode(), JUDGED_OR_TIMED
    ),
    Case("minified-5MB-line", lambda: minified_front_page(5 * MB), JUDGED_OR_TIMED),
    Case("table-50k-links", lambda: links_table(50_000), JUDGED_OR_TIMED),
    Case("10MB-word", lambda: b"<html><body><p>" + b"a" * 10_000_000 + b"</p></body></html>", JUDGED),
    Case(
        "1MB-punctuation-run",
        lambda: b"<html><body><pre>" + b"-=" * (MB // 2) + b"</pre><p>" + SENTENCE.encode() + b"</p></body></html>",
        JUDGED,
    ),
    Case(
        "1MB-entities",
        lambda: b"<html><body><p>" + b"&amp;&eacute;&#169;&#x1F600;&nbsp;&bogus; " * (MB // 42) + b"</p></body></html>",
        JUDGED,
    ),
    Case(
        "invalid-numeric-entities",
        lambda: b"<html><body><p>" + b"&#0;&#xD800;&#99999999;&#x110000;" * 30000 + b"</p></body></html>",
        JUDGED,
    ),
    Case(
        "5MB-attribute",
        lambda: (
            '<html><body><div title="'
            + "x" * (5 * MB)
            + '" class="'
            + " c" * (MB // 2)
            + '">'
            + SENTENCE * 5
            + "</div></body></html>"
        ).encode(),
        JUDGED,
    ),
    Case(
        "100k-attributes",
        lambda: (
            "<html><body><div "
            + " ".join(f"data-a{n}=1" for n in range(100_000))
            + ">"
            + SENTENCE * 5
            + "</div></body></html>"
        ).encode(),
        JUDGED,
    ),
    Case(
        "20k-iframes",
        lambda: (
            "<html><body>" + '<iframe src="/ad"></iframe>' * 20_000 + f"<p>{SENTENCE}</p>" + "</body></html>"
        ).encode(),
        JUDGED,
    ),
    # broken markup
    Case("truncated", lambda: ARTICLE.encode()[: len(ARTICLE) // 2], JUDGED),
    Case("unclosed-comment", lambda: (ARTICLE[:300] + "<!-- " + ARTICLE[300:]).encode(), JUDGED),
    Case("unclosed-attribute-quote", lambda: ('<html><body><div title="oops>' + ARTICLE).encode(), JUDGED),
    Case("plaintext", lambda: ("<html><body><p>Intro</p><plaintext>" + ARTICLE).encode(), JUDGED),
    Case("tag-soup", lambda: b"< a <b < <<>> </ </> <! <?x <![CDATA[ ]]> &&; " * 20000, JUDGED),
    Case("json-as-html", lambda: b'{"items": [' + b'{"id": 1, "title": "x"},' * 10000 + b"{}]}", JUDGED),
    Case("plain-text", lambda: (SENTENCE + "\n\n") * 200, JUDGED),
    Case("lone-surrogates-str", lambda: article("broken \ud800 surrogate \udfff text " + SENTENCE), JUDGED),
    # encodings
    Case("nul-bytes", lambda: article("nul\x00 in\x00side " + SENTENCE).encode() + b"\x00" * 100_000, JUDGED, "utf-8"),
    Case("utf-16-le-bom", lambda: ("\ufeff" + article(FR)).encode("utf-16-le"), JUDGED, "utf-16-le"),
    Case("utf-16-be-bom", lambda: ("\ufeff" + article(FR)).encode("utf-16-be"), JUDGED, "utf-16-be"),
    Case("utf-16-le", lambda: article(FR).encode("utf-16-le"), JUDGED, "utf-16-le"),
    Case("utf-16-be", lambda: article(FR).encode("utf-16-be"), JUDGED, "utf-16-be"),
    Case(
        "xml-declaration",
        lambda: ('<?xml version="1.0" encoding="ISO-8859-1"?>' + article(FR)).encode("cp1252"),
        JUDGED,
        "cp1252",
    ),
    Case("xml-declaration-str", lambda: '<?xml version="1.0" encoding="ISO-8859-1"?>' + article(FR), JUDGED),
    Case(
        "declared-utf8-is-cp1252", lambda: article(FR, head='<meta charset="utf-8">').encode("cp1252"), JUDGED, "cp1252"
    ),
    Case("declared-latin1-is-utf8", lambda: article(RU, head='<meta charset="iso-8859-1">').encode(), JUDGED, "utf-8"),
    Case("undeclared-gbk", lambda: article(ZH).encode("gbk"), JUDGED, "gb18030"),
    Case("undeclared-shift-jis", lambda: article(JA).encode("shift_jis"), JUDGED, "cp932"),
    Case("undeclared-windows-1251", lambda: article(RU).encode("cp1251"), JUDGED, "cp1251"),
    Case(
        "declared-utf16-on-ascii", lambda: article(SENTENCE, head='<meta charset="utf-16">').encode(), JUDGED, "utf-8"
    ),
]


def _importable() -> list[str]:
    found = []
    for name in names():
        try:
            importlib.import_module(EXTRACTORS[name])
        except ImportError:
            continue
        found.append(name)
    return found


METHODS = _importable()
_SLOWEST: dict[str, tuple[float, str]] = {}


@functools.lru_cache(maxsize=1)  # cases run one after the other: keep only the current body
def body_of(case: Case) -> bytes | str:
    return case.make()


def test_every_registered_extractor_imports():
    assert METHODS == names()


@pytest.fixture(scope="module", autouse=True)
def report_slowest(request):
    yield
    reporter = request.config.pluginmanager.get_plugin("terminalreporter")
    capture = request.config.pluginmanager.get_plugin("capturemanager")
    if reporter is None or capture is None or not _SLOWEST:
        return
    with capture.global_and_fixture_disabled():
        reporter.write_line("")
        reporter.write_sep("-", "slowest hostile page per extractor (CPU time)")
        for method, (seconds, case) in sorted(_SLOWEST.items()):
            reporter.write_line(f"{method}: {case} {seconds:.2f} s")


@pytest.mark.parametrize(
    "case, method",
    [(case, method) for case in CASES for method in METHODS],
    ids=[f"{case.name}-{method}" for case in CASES for method in METHODS],
)
def test_hostile_page(case: Case, method: str):
    body = body_of(case)
    started = time.thread_time()
    result = extract(body, extractor=method)
    seconds = time.thread_time() - started
    if seconds > _SLOWEST.get(method, (0.0, ""))[0]:
        _SLOWEST[method] = (seconds, case.name)

    assert isinstance(result, ExtractionResult)
    assert isinstance(result.text, str)
    assert result.extractor == method
    assert 0.0 <= result.article_probability <= 1.0
    assert result.reason in case.reasons, f"{result.reason.value}: {result.detail}"
    if result.reason not in JUDGED:
        assert (result.text, result.article_probability, result.is_article) == ("", 0.0, False)
    if not result.text:
        assert not result.is_article
    if case.encoding is not None:
        assert result.encoding == case.encoding
    assert seconds < TIME_BOUND, f"{case.name} took {seconds:.1f} s with {method}"


@pytest.mark.parametrize("kind", [bytearray, memoryview])
def test_bytes_like_bodies(kind):
    result = extract(kind(ARTICLE.encode()))
    assert result.reason in JUDGED


# ----------------------------------------------------------------------------- the front end's bounds
def test_deep_nesting_is_flattened_not_lost():
    html = (
        "<html><body><p>before the deep part</p>"
        + "<div>" * 100_000
        + "<p>deep inside</p>"
        + "</div>" * 100_000
        + "<p>after the deep part</p></body></html>"
    )
    doc = load_document(html.encode(), ExtractConfig())
    assert doc.max_depth <= MAX_DEPTH
    assert render_slots(doc, range(len(doc.texts))).splitlines() == [
        "before the deep part",
        "deep inside",
        "after the deep part",
    ]


@pytest.mark.parametrize("method", METHODS)
def test_deep_page_never_reaches_the_recursion_limit(method):
    html = "<html><body>" + "<div><span>" * 60_000 + SENTENCE + "</span></div>" * 60_000 + "</body></html>"
    result = extract(html, extractor=method)
    assert result.reason in JUDGED, result.detail  # a RecursionError would be reason "error"
    assert result.debug.get("nesting_truncated") is True


def test_huge_text_node_is_kept_whole():
    doc = load_document(b"<html><body><p>" + b"a" * 10_000_000 + b"</p><p>after</p></body></html>", ExtractConfig())
    assert [len(text) for text in doc.texts] == [10_000_000, 5]


def test_attributes_are_capped():
    html = "<html><body><div " + " ".join(f"a{n}=1" for n in range(50_000)) + f">{SENTENCE}</div></body></html>"
    started = time.thread_time()  # CPU time: the machine's load cannot change it
    doc = load_document(html, ExtractConfig())
    assert time.thread_time() - started < 5.0
    assert max(len(element.attrib) for element in doc.elements) == MAX_ATTRIBUTES
    assert doc.texts == [SENTENCE]


def test_too_many_elements_are_refused_before_a_tree_is_built():
    body = b"<html><body>" + b"<b>x</b>" * 400_000 + b"</body></html>"
    started = time.thread_time()  # CPU time: the machine's load cannot change it
    with pytest.raises(LimitExceeded) as raised:
        load_document(body, ExtractConfig(max_nodes=100_000))
    assert raised.value.reason is Reason.TOO_MANY_NODES
    assert time.thread_time() - started < 2.0


# ----------------------------------------------------------------------------- configured limits
@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize(
    "limits, reason",
    [
        ({"max_body_size": 1000}, Reason.TOO_LARGE),
        ({"max_nodes": 50}, Reason.TOO_MANY_NODES),
        ({"time_budget": 1e-9}, Reason.TIME_LIMIT),
    ],
    ids=["max_body_size", "max_nodes", "time_budget"],
)
@pytest.mark.parametrize("as_str", [False, True], ids=["bytes", "str"])
def test_configured_limits(method, limits, reason, as_str):
    html = ARTICLE.replace("</article>", "<span>x</span>" * 5000 + "</article>")  # past the first time check
    config = ExtractConfig(extractor=method, **limits)
    result = extract_with_config(html if as_str else html.encode(), config)
    assert result.reason == reason, result.detail
    assert (result.text, result.article_probability, result.is_article) == ("", 0.0, False)
