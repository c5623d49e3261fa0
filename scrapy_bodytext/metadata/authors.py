"""Author names out of what pages write: a byline ("By Jane Doe and John Roe, Staff Writers | May 3,
2025"), a declared value ("Doe, Jane; Roe, John") or a list. Names are split at commas, semicolons,
slashes, bars and conjunctions; "By" and its translations, roles, dates, times, e-mail addresses,
URLs and handles are dropped. What is left must look like a name (a few words, one of them
capitalised in scripts with case), else it is not returned.
"""

from __future__ import annotations

import re

from .dates import parse_written_date, remove_dates

#: names returned at most, characters of one name at most, words of one name at most
MAX_NAMES = 20
MAX_NAME_CHARS = 80
MAX_NAME_WORDS = 6
#: characters of a byline looked at
MAX_BYLINE = 500

_PREFIX_RE = re.compile(
    r"^\s*(?:(?:(?:story|words|text|photos?|fotos?|reporting|written|posted|published|reported|compiled|edited|"
    r"interview|illustrations?|video)\s+)?(?:by|from)\b|von\b|par\b|por\b|door\b|przez\b|av\b|af\b|от\b|"
    r"autor(?:in|es|a)?(?:/autor)?\b|author(?:s|ed by)?\b|auteur\b|autore\b|text\b|texto\b|testo\b|tekst\b|"
    r"redaktion\b|redakce\b|作者|文|記者|记者|기자)\s*[:：|]?\s*",
    re.IGNORECASE,
)
#: short lower-case particles that start a byline in some languages ("di Mario Rossi")
_LOWER_PREFIX_RE = re.compile(r"^\s*(?:di|da|de|od|ot|avec|with|mit|con|com|and|und|et|y)\s+(?=[A-ZÀ-Ý])")
_SPLIT_RE = re.compile(
    r"\s*(?:[,;|/·•⋅∙\n\t]|\s[-–—]\s|\s(?:and|und|et|y|e|en|og|och|i|a|és|ve|ja|und|with|mit|avec|con|com|и)\s|&|、|，|／)\s*"
)
#: what follows these is not by the authors: "Written by A Edited by B" names A only
_OTHER_ROLES_RE = re.compile(
    r"\b(?:edited|photos?|photographs?|pictures?|illustrations?|graphics?|video|translated|translation|"
    r"additional reporting|fact-?checked|reviewed|produced|design(?:ed)?|source)\s+(?:by|von|par|por)\b.*",
    re.IGNORECASE | re.DOTALL,
)
_EMAIL_RE = re.compile(r"\S+@\S+\.\w+")
_URL_RE = re.compile(r"(?:https?://|www\.)\S+|\S+\.(?:com|org|net|de|co\.uk|html?)(?:/\S*)?\b", re.IGNORECASE)
_HANDLE_RE = re.compile(r"(?<!\w)@\w+")
_PARENS_RE = re.compile(r"\(([^()]*)\)|\[([^\[\]]*)\]")
_DIGITS_RE = re.compile(r"\d.*$", re.DOTALL)
_UPPER_RE = re.compile(r"[A-ZÀ-ÖØ-ÞĀ-ſΑ-ΩА-Я]")
_LATIN_RE = re.compile(r"[A-Za-zÀ-ÖØ-öø-ÿ]")
#: words of a role or a desk written before or after a name ("Senior Editor", "Staff Writer",
#: "Redakteurin"), in lower case
ROLE_WORDS = frozenset(
    """
staff writer writers reporter reporters correspondent correspondents editor editors contributor contributors
contributing columnist columnists photographer photographers photo photos photography foto fotos video producer
senior chief political business sports sport science health technology tech deputy associate assistant
managing executive special national international foreign local news desk team guest freelance
journalist journalists redakteur redakteurin korrespondent korrespondentin journalistin journaliste
rédacteur rédactrice redactor redactora periodista giornalista redattore redattrice head director directora
directeur directrice direktor direktorin manager founder co-founder cofounder ceo cto president expert
specialist consultant analyst researcher host anchor
""".split()
)
#: words that make a part a role, a label or a date, not a name (lower case)
NOT_NAME_WORDS = ROLE_WORDS | frozenset(
    """
updated update published posted last modified am pm utc gmt est edt pst pdt cet cest bst ago hours hour
minutes minute min mins read reading time share follow email twitter facebook linkedin instagram more
view profile all articles stories see comments comment reply print subscribe newsletter opinion analysis
today yesterday monday tuesday wednesday thursday friday saturday sunday mon tue wed thu fri sat sun january
february march april may june july august september october november december jan feb mar apr jun jul aug sep
sept oct nov dec by von par por in at on of for the der die das le la el il lo für about über sobre
sign up log login logout register menu search home account my
ma phd md mba msc bsc rn dvm vmd dds jd mph cpa cfa uhr heure hora ore
""".split()
)
#: first words of a link or label next to a byline, never of a name ("Follow Jane", "More from", "View all")
LABEL_WORDS = frozenset("follow more view see read contact email share about all from".split())
#: a word of a name shown on the page: letters, with inner hyphens, apostrophes and dots ("Jean-Pierre",
#: "O’Brien", "J.R."), in brackets or not
_NAME_WORD_RE = re.compile(r"^[^\W\d_]+(?:[-‐'’.][^\W\d_]+)*\.?$")
#: last words of a desk or team credited as the author ("The Upwork Team", "CNN Staff", "BR24 Redaktion")
CREDIT_WORDS = frozenset("team staff desk redaktion rédaction redacción redazione redactie équipe equipo".split())
#: words that join a role to where it is held ("Senior Editor at ...", "Head of Content")
_CONNECTORS = frozenset("at of for bei für chez presso".split())
#: labels of a date in a byline ("Jane Doe | Updated 3 hours ago"), replaced by a separator
_DATE_LABEL_RE = re.compile(
    r"\b(?:last\s+)?(?:updated|modified|published|posted|aktualisiert|veröffentlicht|publié|mis à jour|publicado|"
    r"actualizado|pubblicato|aggiornato)\b(?:\s*(?:on|am|le|el|il|:))?(?!\s+(?:by|von|par|por)\b)",
    re.IGNORECASE,
)
#: role words written after names in Korean, Japanese and Chinese bylines
CJK_ROLES = frozenset(("기자", "특파원", "記者", "特派員", "编辑", "记者", "編集委員", "論説委員"))
_TRIM = " :-–—|,.;·•*\"'“”‘’«»()[]/"
#: words allowed in lower case inside a name (particles)
PARTICLES = frozenset("de da di du del della der den van von la le zu dos das do ten ter bin al el ibn".split())


def split_names(text: str | None, *, strict: bool = False) -> list[str]:
    """The author names in one declared value or (``strict``) one byline shown on the page."""
    if not text:
        return []
    text = text[:MAX_BYLINE]
    text = _OTHER_ROLES_RE.sub("", text) or text
    text = remove_dates(text)
    text = _DATE_LABEL_RE.sub(" | ", text)
    text = _EMAIL_RE.sub(" | ", text)
    text = _URL_RE.sub(" | ", text)
    text = _HANDLE_RE.sub(" | ", text)
    text = _PARENS_RE.sub(_parenthesis, text)
    names: list[str] = []
    for part in _SPLIT_RE.split(text):
        name = clean_name(part, strict=strict)
        if name and name.casefold() not in {n.casefold() for n in names}:
            names.append(name)
            if len(names) >= MAX_NAMES:
                break
    return names


def _parenthesis(found: re.Match) -> str:
    """Brackets around a URL, a date or a handle go; "(with A and B)" becomes a list of its own; a
    bracketed part of a name ("Bruno (Henrique) Rodrigues") stays."""
    inner = (found.group(1) or found.group(2) or "").strip()
    if not inner or re.search(r"\d|https?:|www\.|@", inner):
        return " | "
    if inner[0].islower():
        return f" | {inner} | "
    return found.group(0)


def clean_name(part: str, *, strict: bool = True) -> str | None:
    """One candidate part as a name, or ``None`` when it is not one. ``strict`` (for text shown on
    the page, where a byline runs into dates and labels) also cuts the part at its first digit and,
    in scripts with case, wants every word but particles capitalised; declared values may be
    organisations ("FOCUS online", "BR24 Redaktion")."""
    part = " ".join(part.split())
    previous = None
    while part and part != previous:
        previous = part
        part = _PREFIX_RE.sub("", part, count=1)
        part = _LOWER_PREFIX_RE.sub("", part, count=1)
        part = part.strip(_TRIM)
    if not part or part[0].isdigit() or parse_written_date(part) is not None:
        return None
    digits = _DIGITS_RE.search(part)
    if digits:
        glued = digits.start() > 0 and part[digits.start() - 1].isalpha()
        if glued and " " not in part:
            return None  # a user name such as "jdoe42"
        if strict:
            part = part[: digits.start()].strip(_TRIM)
    words = part.split()
    if not words or len(words) > MAX_NAME_WORDS or len(part) > MAX_NAME_CHARS or len(part) < 2:
        return None
    lowered = [_word(w) for w in words]
    if all(w in NOT_NAME_WORDS for w in lowered) or lowered[0] in LABEL_WORDS:
        return None
    while len(words) > 1 and lowered[-1] in CJK_ROLES:  # "신현주 기자" -> "신현주"
        words, lowered = words[:-1], lowered[:-1]
    if _LATIN_RE.search(part) or _UPPER_RE.search(part):
        if not _UPPER_RE.search(part):
            return None  # "jdoe", "admin": a name has a capital letter
        credit = lowered[-1] in CREDIT_WORDS and lowered[-2] not in NOT_NAME_WORDS if len(words) > 1 else False
        if credit:  # "the Lavazza Team", "EDB Team": a team credited as the author, kept whole
            if words[0] == "the":
                words, lowered = words[1:], lowered[1:]
        elif lowered[0] in ROLE_WORDS and _CONNECTORS.intersection(lowered):
            return None  # "Senior Editor at The Valley Post", "Head of Content"
        else:
            while len(words) > (1 if strict else 2) and lowered[0] in ROLE_WORDS and words[1][:1].isupper():
                words, lowered = words[1:], lowered[1:]  # "Chief Editor Jane Doe", "Head Winemaker"
            while len(words) > (1 if strict else 2) and lowered[-1] in NOT_NAME_WORDS:
                words, lowered = words[:-1], lowered[:-1]  # "Jane Doe Staff Writer", "Jane Doe on" -> "Jane Doe"
        if strict and any(
            (w[:1].islower() and lw not in PARTICLES) or not _name_word(w) for w, lw in zip(words, lowered)
        ):
            return None
        if strict and len(words) == 1 and not words[0].isupper():
            return None  # one capitalised word in running text is a noun as often as a name ("AFP" passes)
    return " ".join(words)


def _name_word(word: str) -> bool:
    """Whether a word shown on the page can be part of a name (``_NAME_WORD_RE``, in brackets or not)."""
    if word.startswith("(") and word.endswith(")"):
        word = word[1:-1]
    return _NAME_WORD_RE.match(word.rstrip(",")) is not None


def _word(word: str) -> str:
    """A word as the word lists hold it: lower case; a hyphenated role ("Editor-in-Chief") as its
    role word."""
    word = word.casefold().strip(".,")
    if "-" in word and word not in NOT_NAME_WORDS and all(p in NOT_NAME_WORDS for p in word.split("-")):
        return next((p for p in word.split("-") if p in ROLE_WORDS), word)
    return word


def names_from(values, *, limit: int = MAX_NAMES) -> list[str]:
    """Names from several declared values, in order, without repeats."""
    names: list[str] = []
    seen: set[str] = set()
    for value in values:
        for name in split_names(value):
            key = name.casefold()
            if key not in seen:
                seen.add(key)
                names.append(name)
                if len(names) >= limit:
                    return names
    return names
