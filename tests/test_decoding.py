"""Bytes are decoded like a browser: BOM, declared charset (WHATWG labels), detection; mislabelled
pages stay readable and invalid sequences become U+FFFD. Every expected text is the text encoded."""

from __future__ import annotations

import pytest

from scrapy_bodytext import Reason, extract
from scrapy_bodytext.api import load_document
from scrapy_bodytext.config import ExtractConfig
from scrapy_bodytext.output.text import render_slots
from scrapy_bodytext.page.decoding import decode, resolve_label

ZH = "北京时间昨天晚上，国家统计局发布了最新的经济数据。数据显示，今年前三个季度国内生产总值同比增长百分之五点二，消费市场继续恢复，就业形势总体稳定。"
ZH_TW = "政府昨日宣布新的教育計畫，將在明年改善學校設備並增加教師培訓。"
JA = "東京都は昨日、新しい防災計画を発表しました。計画では、大規模な地震が発生した場合に備えて、避難所の数を増やし、食料や水の備蓄を強化するとしています。"
RU = "Вчера в Москве прошло заседание правительства, на котором обсуждались вопросы развития транспортной инфраструктуры. Министр сообщил, что планируется построить новые станции метро."
KO = "서울시는 어제 새로운 교통 정책을 발표했습니다. 시는 대중교통 이용을 늘리기 위해 버스 노선을 개편하고 지하철 운행 시간을 연장할 계획이라고 밝혔습니다."
FR = "Le gouvernement a présenté hier un nouveau projet de loi sur l'éducation. Selon le ministre, les écoles recevront davantage de moyens dès la rentrée prochaine."
ES = "El gobierno presentó ayer un nuevo proyecto de ley sobre educación. Según el ministro, las escuelas recibirán más recursos el próximo año."
CZ = "Vláda včera schválila nový zákon o podpoře vzdělávání. Podle ministra dostanou školy více peněz a učitelé budou mít lepší přípravu."
GR = "Η κυβέρνηση ανακοίνωσε χθες νέα μέτρα για τη στήριξη των νοικοκυριών. Οι επιδοτήσεις θα δοθούν τον επόμενο μήνα."
HE = "הממשלה הודיעה אתמול על תוכנית חדשה לשיפור מערכת החינוך בשנה הבאה."
AR = "أعلنت الحكومة أمس عن خطة جديدة لتحسين نظام التعليم في العام المقبل."
TH = "รัฐบาลประกาศแผนใหม่เพื่อปรับปรุงระบบการศึกษาในปีหน้า"
#: a big ASCII head (inline script) pushing the text far past the first bytes of the page
BIG_SCRIPT = "<script>" + "var counter = 1;\n" * 6000 + "</script>"


def page(text: str, *, head: str = "") -> str:
    return (
        f"<!DOCTYPE html>\n<html>\n<head>{head}<title>News</title></head>\n<body>\n"
        f'<div class="nav"><a href="/">Home</a> | <a href="/news">News</a></div>\n'
        f'<div class="article"><h1>Report</h1>\n<p>{text}</p>\n</div>\n</body>\n</html>\n'
    )


def meta(label: str) -> str:
    return f'<meta http-equiv="Content-Type" content="text/html; charset={label}">'


def page_text(body: bytes | str) -> tuple[str, str | None]:
    """The whole body text of a page through the real front end (decode, parse, clean, flatten)."""
    doc = load_document(body, ExtractConfig())
    return render_slots(doc, range(len(doc.texts))), doc.encoding


# ----------------------------------------------------------------------------- byte-order marks
@pytest.mark.parametrize(
    "bom, codec, used",
    [
        (b"\xef\xbb\xbf", "utf-8", "utf-8"),
        (b"\xff\xfe", "utf-16-le", "utf-16-le"),
        (b"\xfe\xff", "utf-16-be", "utf-16-be"),
    ],
)
def test_bom_wins_over_a_conflicting_declaration(bom, codec, used):
    body = bom + page(RU, head=meta("windows-1251")).encode(codec)
    text, encoding = decode(body, content_type="text/html; charset=iso-8859-1")
    assert encoding == used
    assert RU in text
    assert not text.startswith("\ufeff")


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
@pytest.mark.parametrize("sample", [FR, RU, ZH, KO, JA], ids=["fr", "ru", "zh", "ko", "ja"])
def test_utf16_without_bom_is_recognised(codec, sample):
    html = page(sample + " " + sample)  # text in any script leaves NUL bytes at one parity only
    assert decode(html.encode(codec)) == (html, codec)


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
@pytest.mark.parametrize("bom", [True, False])
def test_utf16_pages_extract_their_text(codec, bom):
    html = page(FR + " " + FR)
    body = (("\ufeff" + html) if bom else html).encode(codec)
    text, encoding = page_text(body)
    assert encoding == codec
    assert FR in text


def test_utf16_label_on_ascii_compatible_bytes_means_utf8():
    text, encoding = decode(page(FR, head='<meta charset="utf-16">').encode("utf-8"))
    assert (encoding, FR in text) == ("utf-8", True)


# ----------------------------------------------------------------------------- WHATWG labels
@pytest.mark.parametrize(
    "label, sample, codec, used",
    [
        ("iso-8859-1", "Prix: 20 € “net”", "cp1252", "cp1252"),  # € and quotes exist only in windows-1252
        ("latin1", "Prix: 20 € “net”", "cp1252", "cp1252"),
        ("us-ascii", "“quoted” – dash", "cp1252", "cp1252"),
        ("gb2312", "张喆说" + ZH, "gbk", "gb18030"),  # 喆 is a GBK extension outside GB 2312
        ("x-gbk", ZH, "gbk", "gb18030"),
        ("shift_jis", "①髙" + JA, "cp932", "cp932"),  # NEC/IBM extensions of windows-31j
        ("euc-kr", "똠" + KO, "cp949", "cp949"),  # a Unified Hangul Code syllable outside KS X 1001
        ("ks_c_5601-1987", KO, "cp949", "cp949"),
        ("koi8-r", RU, "koi8-r", "koi8-r"),
        ("windows-1251", RU, "cp1251", "cp1251"),
        ("windows-1250", CZ, "cp1250", "cp1250"),
        ("x-cp1251", RU, "cp1251", "cp1251"),
        ("big5", ZH_TW, "big5", "big5hkscs"),
        ("tis-620", TH, "cp874", "cp874"),
        ("iso-8859-8-i", HE, "iso8859-8", "iso8859-8"),
        ("euc-jp", JA, "euc_jp", "euc_jp"),
        ("unicode-1-1-utf-8", FR, "utf-8", "utf-8"),
    ],
    ids=lambda value: value if value.isascii() else "",
)
def test_declared_labels_map_like_browsers(label, sample, codec, used):
    declared_in_meta = page(sample, head=meta(label)).encode(codec)
    assert decode(declared_in_meta) == (page(sample, head=meta(label)), used)
    undeclared = page(sample).encode(codec)
    assert decode(undeclared, content_type=f"text/html; charset={label}")[0] == page(sample)
    assert decode(undeclared, encoding=label)[0] == page(sample)


def test_header_charset_beats_meta_and_known_encoding_beats_both():
    body = page(RU, head=meta("windows-1251")).encode("koi8-r")
    assert RU in decode(body, content_type="text/html; charset=KOI8-R")[0]
    assert RU in decode(body, encoding="koi8-r", content_type="text/html; charset=windows-1251")[0]


def test_resolve_label():
    assert resolve_label(" ISO-8859-1 ") == "cp1252"
    assert resolve_label('"x-mac-cyrillic"') == "mac-cyrillic"
    assert resolve_label("utf-7") is None  # refused: it smuggles markup past a browser's view
    assert resolve_label("no-such-charset") is None
    assert resolve_label(None) is None


def test_unknown_or_refused_label_falls_back_without_raising():
    text, encoding = decode(page(FR, head='<meta charset="no-such-charset">').encode("utf-8"))
    assert (encoding, FR in text) == ("utf-8", True)
    smuggled = page("+ADw-script+AD4-alert(1)+ADw-/script+AD4-", head='<meta charset="utf-7">')
    text, encoding = decode(smuggled.encode("ascii"))
    assert "+ADw-script+AD4-" in text and "<script>alert" not in text


# ----------------------------------------------------------------------------- detection
@pytest.mark.parametrize(
    "sample, codec, used",
    [
        (ZH, "gbk", "gb18030"),
        (ZH_TW, "big5", "big5hkscs"),
        (JA, "shift_jis", "cp932"),
        (JA, "euc_jp", None),
        (RU, "cp1251", "cp1251"),
        (RU, "koi8-r", "koi8-r"),
        (KO, "euc_kr", "cp949"),
        (FR, "cp1252", "cp1252"),
        (ES, "cp1252", "cp1252"),
        (GR, "cp1253", "cp1253"),
        (HE, "cp1255", "cp1255"),
        (AR, "cp1256", "cp1256"),
        (TH, "cp874", "cp874"),
        (ZH[:20], "gbk", "gb18030"),
        (RU[:50], "cp1251", "cp1251"),
        (JA[:20], "shift_jis", "cp932"),
        ("Le café est très réputé à Paris.", "cp1252", "cp1252"),
    ],
    ids=lambda value: str(value) if value is None or value.isascii() else f"{len(value)}chars",
)
@pytest.mark.parametrize("head", ["", BIG_SCRIPT], ids=["short", "after-100KB-script"])
def test_undeclared_legacy_pages_are_detected(sample, codec, used, head):
    html = page(sample, head=head)
    text, encoding = decode(html.encode(codec))
    assert text == html
    if used is not None:  # EUC-JP is found as its superset euc_jis_2004
        assert encoding == used


def test_detected_encoding_reaches_the_document():
    text, encoding = page_text(page(RU).encode("cp1251"))
    assert (encoding, RU in text) == ("cp1251", True)


# ----------------------------------------------------------------------------- mislabelled pages
@pytest.mark.parametrize(
    "sample, codec",
    [(FR, "cp1252"), (RU, "cp1251"), (ZH, "gbk"), (JA, "shift_jis")],
    ids=["cp1252", "cp1251", "gbk", "shift_jis"],
)
def test_declared_utf8_that_is_not_utf8_is_detected(sample, codec):
    html = page(sample, head='<meta charset="utf-8">')
    text, encoding = decode(html.encode(codec))
    assert text == html
    assert encoding != "utf-8"
    # the same when the declaration comes from outside (e.g. Scrapy's choice from the header)
    assert decode(page(sample).encode(codec), encoding="utf-8")[0] == page(sample)


@pytest.mark.parametrize("label", ["iso-8859-1", "windows-1251", "gb2312", "shift_jis"])
def test_declared_legacy_that_is_valid_utf8_is_read_as_utf8(label):
    html = page(FR + " " + RU + " " + ZH, head=meta(label))
    assert decode(html.encode("utf-8")) == (html, "utf-8")


def test_declared_legacy_ascii_page_keeps_its_declaration():
    html = page("plain words only", head=meta("windows-1251"))
    assert decode(html.encode("ascii")) == (html, "cp1251")


def test_damaged_utf8_keeps_utf8_with_replacement_characters():
    good = page(FR + " " + RU)
    body = good.encode("utf-8").replace("présenté".encode(), b"pr\xe9sent\xe9")  # two stray latin-1 bytes
    text, encoding = decode(body)
    assert encoding == "utf-8"
    assert text == good.replace("présenté", "pr\ufffdsent\ufffd")


# ----------------------------------------------------------------------------- invalid bytes, NUL, XML
@pytest.mark.parametrize(
    "body",
    [
        b"<p>\xff\xfe\xfd broken \xc3</p>",
        b"<p>caf\xc3\xa9 \xed\xa0\x80 surrogate</p>",  # an encoded surrogate is invalid UTF-8
        b"<p>\xe4\xb8</p>",  # a character cut at the end of the body
        b"\x80\x81\x82\x83<p>x</p>",
    ],
)
def test_invalid_sequences_never_raise(body):
    text, encoding = decode(body)
    assert isinstance(text, str) and encoding
    assert "<p>" in text


def test_invalid_utf8_becomes_replacement_characters():
    text, encoding = decode("<p>café naïve résumé — ok</p>".encode() + b" \xff end")
    assert encoding == "utf-8"
    assert text.endswith("</p> \ufffd end")


def test_gb18030_lead_0x80_is_the_euro_sign():
    body = page("价格 ", head=meta("gb2312")).encode("gbk").replace(b" </p>", b" \x80</p>")
    assert "价格 €</p>" in decode(body)[0]


def test_nul_bytes_are_dropped_from_the_text():
    text, _ = page_text(page("Nul\x00 bytes in\x00side a para\x00graph of " + FR).encode("utf-8"))
    assert "Nul bytes inside a paragraph of " + FR in text
    assert "\x00" not in text


@pytest.mark.parametrize(
    "label, codec",
    [
        ("ISO-8859-1", "cp1252"),
        ("windows-1251", "cp1251"),
        ("Shift_JIS", "cp932"),
    ],
)
@pytest.mark.parametrize("as_str", [False, True], ids=["bytes", "str"])
def test_xml_declaration_with_an_encoding(label, codec, as_str):
    sample = {"cp1252": FR, "cp1251": RU, "cp932": JA}[codec]
    html = f'<?xml version="1.0" encoding="{label}"?>\n' + page(sample + " " + sample)
    body = html if as_str else html.encode(codec)
    if not as_str:
        assert decode(body) == (html, codec)
    text, _ = page_text(body)  # lxml refuses str input that carries an encoding declaration
    assert sample + " " + sample in text


@pytest.mark.parametrize("label", ["rot13", "base64", "zlib", "hex", "undefined", "uu"])
def test_a_declared_codec_that_is_no_text_encoding_falls_back_to_detection(label):
    page = f'<html><head><meta charset="{label}"></head><body><p>Caf\u00e9 by the river, open daily.</p></body></html>'
    result = extract(page.encode("utf-8"))
    assert result.reason is Reason.OK
    assert result.encoding == "utf-8"
    assert "Caf\u00e9" in result.text
