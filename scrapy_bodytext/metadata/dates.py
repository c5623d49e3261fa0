"""Dates as pages write them, to ISO 8601: ``2025-05-19``, ``2025-05-19T10:30:00`` or, where the
page gives a time zone, ``2025-05-19T10:30:00+02:00``. The calendar date is kept as stated (never
converted to another zone). Anything not clearly a date is ``None``: ambiguous numeric dates
(``05/06/2025``) are read only when the page language says which order it uses.
"""

from __future__ import annotations

import re
import unicodedata
from datetime import date, datetime, timedelta, timezone

#: years accepted (the web's first pages to a year after today)
MIN_YEAR = 1990
#: characters of a value that are looked at
MAX_DATE_TEXT = 200

MONTHS: dict[str, int] = {}
for _number, _names in enumerate(
    (
        "january jan januar janvier enero ene gennaio gen janeiro januari stycznia leden ledna januar",
        "february feb februar fevrier février febrero febbraio fevereiro februari lutego unor února únor",
        "march mar marz märz maerz mars marzo março maart marca brezen března březen",
        "april apr avril abril aprile kwietnia duben dubna",
        "may mai mayo maggio maio mei maja kveten května květen",
        "june jun juni juin junio giugno junho czerwca cerven června červen",
        "july jul juli juillet julio luglio julho lipca cervenec července červenec",
        "august aug aout août agosto augustus sierpnia srpen srpna",
        "september sep sept septembre septiembre setiembre settembre setembro wrzesnia września zari září",
        "october oct oktober octobre octubre ottobre outubro okt pazdziernika października rijen října říjen",
        "november nov novembre noviembre novembro listopada listopad listopadu",
        "december dec dezember decembre décembre diciembre dic dicembre dezembro dez grudnia prosinec prosince",
    ),
    1,
):
    for _name in _names.split():
        MONTHS.setdefault(_name, _number)

#: common zone abbreviations of news pages with one meaning each (hours east of UTC)
ZONES = {
    "utc": 0,
    "gmt": 0,
    "z": 0,
    "wet": 0,
    "bst": 1,
    "cet": 1,
    "mez": 1,
    "cest": 2,
    "mesz": 2,
    "eet": 2,
    "eest": 3,
    "msk": 3,
    "est": -5,
    "edt": -4,
    "cst": -6,
    "cdt": -5,
    "mst": -7,
    "mdt": -6,
    "pst": -8,
    "pdt": -7,
    "akst": -9,
    "akdt": -8,
    "hst": -10,
    "jst": 9,
    "kst": 9,
    "hkt": 8,
    "sgt": 8,
    "aest": 10,
    "aedt": 11,
    "awst": 8,
    "nzst": 12,
    "nzdt": 13,
}
_MONTH_NAMES = "|".join(sorted(MONTHS, key=len, reverse=True))
_ZONE_NAMES = "|".join(sorted((z for z in ZONES if len(z) > 1), key=len, reverse=True))

# Patterns are matched against lower-cased text (case-insensitive alternations are slow in ``re``).
_ISO_RE = re.compile(
    r"(?<!\d)(\d{4})(-|/|\.)(\d{1,2})\2(\d{1,2})(?!\d)"
    r"(?:(?:t|\s+|\s*,\s*)(\d{1,2})[:.h](\d{2})(?:[:.](\d{2})(?:[.,]\d+)?)?(?!\d)"
    r"\s*(z|[+-]\d{2}(?::?\d{2})?(?!\d)|(?:utc|gmt)(?:[+-]\d{1,2}(?::?\d{2})?)?)?)?"
)
_COMPACT_RE = re.compile(r"^(\d{4})(\d{2})(\d{2})(?:t?(\d{2})(\d{2})(\d{2})?(z|[+-]\d{2}:?\d{2})?)?$")
_TIME = (
    r"(?:\s*(?:,|at|um|à|a las|alle|às|-|–|\|)?\s*(\d{1,2})[:.h](\d{2})(?:[:.](\d{2}))?\s*([ap]\.?m\.?)?"
    rf"(?:\s*(z|[+-]\d{{2}}:?\d{{2}}|(?:{_ZONE_NAMES})(?![a-z])))?)?"
)
_DAY_MONTH_RE = re.compile(
    rf"(?<![\w])(\d{{1,2}})(?:st|nd|rd|th|er|º|\.)?\s*(?:de\s+)?({_MONTH_NAMES})\.?,?\s*(?:de\s+)?(\d{{4}})(?!\d){_TIME}"
)
_MONTH_DAY_RE = re.compile(rf"(?<![\w])({_MONTH_NAMES})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})(?!\d){_TIME}")
#: a month name with a day, year optional ("Apr 16", "16. April 2015"), found only to be removed
_ANY_DAY_RE = re.compile(
    rf"(?<![\w])(?:(?:{_MONTH_NAMES})\.?\s+\d{{1,2}}(?:st|nd|rd|th)?(?:,?\s+\d{{4}})?|"
    rf"\d{{1,2}}(?:st|nd|rd|th|\.)?\s+(?:{_MONTH_NAMES})\.?(?:,?\s+\d{{4}})?)(?![\w]){_TIME}"
)
_CJK_RE = re.compile(r"(\d{4})\s*年\s*(\d{1,2})\s*月\s*(\d{1,2})\s*日(?:\D{0,6}?(\d{1,2})[:：時时](\d{2}))?")
_KO_RE = re.compile(r"(\d{4})\s*년\s*(\d{1,2})\s*월\s*(\d{1,2})\s*일")
_NUMERIC_RE = re.compile(r"(?<![\d.])(\d{1,2})([./-])(\d{1,2})\2(\d{4})(?![\d])" + _TIME)
#: a decimal digit of any script (what every date pattern needs; one search, not a loop in Python)
_DIGIT_RE = re.compile(r"\d")
_RFC_RE = re.compile(r"^[a-z]{3},?\s+\d{1,2}\s+[a-z]{3}\s+\d{4}\s+\d{1,2}:\d{2}")

#: languages writing numeric dates month first (the others day first); region-qualified tags win
MONTH_FIRST = frozenset(("en-us", "en-ph", "en-ca", "fil"))
DAY_FIRST_LANGS = frozenset(
    "de fr es it pt nl pl cs sk ru uk da sv no nb nn fi tr el hu ro hr sl sr bg et lv lt id ms vi ar he".split()
)


def _fold(text: str) -> str:
    """Composed characters, lower case: the form the patterns are written for."""
    return unicodedata.normalize("NFC", text).lower()


def _latest_year() -> int:
    return date.today().year + 1


def _offset(text: str | None) -> timezone | None:
    """``Z``, ``+02:00``, ``+0200``, ``+02``, ``UTC``, ``GMT+2`` or a known abbreviation."""
    if not text:
        return None
    text = text.strip().lower()
    if text in ZONES:
        return timezone(timedelta(hours=ZONES[text]))
    for prefix in ("utc", "gmt"):
        if text.startswith(prefix):
            text = text[len(prefix) :]
    found = re.fullmatch(r"([+-])(\d{1,2})(?::?(\d{2}))?", text)
    if not found:
        return None
    hours, minutes = int(found.group(2)), int(found.group(3) or 0)
    if hours > 14 or minutes > 59:
        return None
    sign = -1 if found.group(1) == "-" else 1
    return timezone(sign * timedelta(hours=hours, minutes=minutes))


def format_iso(
    year: int,
    month: int,
    day: int,
    hour: int | None = None,
    minute: int | None = None,
    second: int | None = None,
    zone: timezone | None = None,
) -> str | None:
    """ISO 8601 text of a valid date (and time); ``None`` when the parts are no real date."""
    if not MIN_YEAR <= year <= _latest_year():
        return None
    try:
        day_value = date(year, month, day)
        if hour is None:
            return day_value.isoformat()
        moment = datetime(year, month, day, hour, minute or 0, second or 0, tzinfo=zone)
    except ValueError:
        return None
    return moment.isoformat()


def _hour(hour: str | None, meridiem: str | None) -> int | None:
    if hour is None:
        return None
    value = int(hour)
    if meridiem:
        pm = meridiem.lower().startswith("p")
        if not 1 <= value <= 12:
            return None
        value = value % 12 + (12 if pm else 0)
    return value


def parse_date(text: str | None, *, lang: str | None = None) -> str | None:
    """The date (and time) a declared value or a line of page text states, as ISO 8601."""
    if not text or not _DIGIT_RE.search(text, 0, MAX_DATE_TEXT):
        return None
    text = _fold(text.strip()[:MAX_DATE_TEXT])
    if _RFC_RE.match(text):
        from email.utils import parsedate_to_datetime

        try:
            moment = parsedate_to_datetime(text)
        except (TypeError, ValueError, IndexError):
            moment = None
        if moment is not None and MIN_YEAR <= moment.year <= _latest_year():
            return moment.replace(microsecond=0).isoformat()
    found = _COMPACT_RE.match(text)
    if found:
        y, m, d, hh, mm, ss, zone = found.groups()
        return format_iso(
            int(y), int(m), int(d), None if hh is None else int(hh), int(mm or 0), int(ss or 0), _offset(zone)
        )
    found = _ISO_RE.search(text)
    if found:
        y, _, m, d, hh, mm, ss, zone = found.groups()
        if hh is None:
            return format_iso(int(y), int(m), int(d))
        return format_iso(int(y), int(m), int(d), int(hh), int(mm), int(ss or 0), _offset(zone))
    return parse_written_date(text, lang=lang)


def parse_written_date(text: str, *, lang: str | None = None) -> str | None:
    """A date written for readers: ``19 May 2025``, ``May 19, 2025 10:30 AM EDT``, ``19. Mai 2025``,
    ``19 de mayo de 2025``, ``2025年7月30日``, ``19.05.2025`` (and ``05/19/2025`` by ``lang``)."""
    text = _fold(text[:MAX_DATE_TEXT])
    if not _DIGIT_RE.search(text):
        return None
    for pattern, order in ((_MONTH_DAY_RE, "mdy"), (_DAY_MONTH_RE, "dmy")):
        found = pattern.search(text)
        if found:
            groups = found.groups()
            if order == "mdy":
                month_name, day, year = groups[:3]
            else:
                day, month_name, year = groups[:3]
            month = MONTHS.get(month_name.lower().rstrip("."))
            if month is None:
                continue
            return _with_time(int(year), month, int(day), groups[3:])
    found = _CJK_RE.search(text) or _KO_RE.search(text)
    if found:
        y, m, d = (int(v) for v in found.groups()[:3])
        extra = found.groups()[3:]
        if extra and extra[0] is not None:
            return format_iso(y, m, d, int(extra[0]), int(extra[1]), 0)
        return format_iso(y, m, d)
    found = _NUMERIC_RE.search(text)
    if found:
        first, separator, second, year = found.groups()[:4]
        first_value, second_value = int(first), int(second)
        order = _numeric_order(first_value, second_value, separator, lang)
        if order is None:
            return None
        day, month = (first_value, second_value) if order == "dmy" else (second_value, first_value)
        return _with_time(int(year), month, day, found.groups()[4:])
    return None


def remove_dates(text: str, mark: str = " | ") -> str:
    """``text`` with its written dates and times (and ISO dates) replaced by ``mark``."""
    folded = _fold(text)
    if len(folded) != len(text) or not _DIGIT_RE.search(text):
        return text
    spans = [m.span() for pattern in (_ISO_RE, _ANY_DAY_RE, _NUMERIC_RE, _CJK_RE) for m in pattern.finditer(folded)]
    for start, end in sorted(spans, reverse=True):
        text = text[:start] + mark + text[end:]
    return text


def _numeric_order(first: int, second: int, separator: str, lang: str | None) -> str | None:
    """``dmy`` or ``mdy`` for ``first/second/year``; ``None`` when nothing tells."""
    if first > 12 >= second:
        return "dmy"
    if second > 12 >= first:
        return "mdy"
    if first == second:
        return "dmy"
    if separator == ".":
        return "dmy"  # day.month.year is the only dotted order in use
    tag = (lang or "").lower().replace("_", "-")
    if tag in MONTH_FIRST:
        return "mdy"
    if tag.split("-")[0] in DAY_FIRST_LANGS or (tag.startswith("en-") and tag not in MONTH_FIRST):
        return "dmy"
    return None


def _with_time(year: int, month: int, day: int, parts: tuple) -> str | None:
    hour, minute, second, meridiem, zone = (tuple(parts) + (None,) * 5)[:5]
    if hour is None:
        return format_iso(year, month, day)
    value = _hour(hour, meridiem)
    if value is None or value > 23 or int(minute) > 59:
        return format_iso(year, month, day)
    return format_iso(year, month, day, value, int(minute), int(second or 0), _offset(zone))


_URL_DATE_RES = (
    re.compile(r"/((?:19|20)\d{2})/(\d{1,2})/(\d{1,2})(?:/|[_-]|\.html?|$)"),
    re.compile(r"[/_-]((?:19|20)\d{2})-(\d{2})-(\d{2})(?:[/_.-]|$)"),
    re.compile(r"/((?:19|20)\d{2})(\d{2})(\d{2})(?:/|[_-]|\.html?|$)"),
    re.compile(r"/((?:19|20)\d{2})-?(\d{2})/(\d{2})/"),
    re.compile(r"/((?:19|20)\d{2})/([a-z]{3,9})/(\d{1,2})(?:/|[_-]|\.html?|$)"),
)


def date_in_url(url: str | None) -> str | None:
    """The day a URL's path names: ``/2025/05/19/``, ``/2025-05-19-``, ``/20250519/``, ``/2025-05/19/``,
    ``/2025/may/19/`` (a month name or its abbreviation, as in ``MONTHS``)."""
    if not url:
        return None
    path = url.split("?", 1)[0].split("#", 1)[0]
    path = path.split("//", 1)[-1]
    slash = path.find("/")
    if slash < 0:
        return None
    path = path[slash:][:500].lower()
    for pattern in _URL_DATE_RES:
        found = pattern.search(path)
        if found:
            month = found.group(2)
            number = int(month) if month.isdigit() else MONTHS.get(month)
            result = format_iso(int(found.group(1)), number, int(found.group(3))) if number else None
            if result:
                return result
    return None
