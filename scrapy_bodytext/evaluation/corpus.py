"""Reader of a labelled corpus folder: ``index.jsonl`` plus the page files it names.

Each line of ``index.jsonl`` is one page: ``id``, ``source``, ``url`` (or null), ``file`` (path
relative to the folder; ``.gz`` files are gunzipped), ``is_article``, ``gold_text`` ("" for
non-articles), and optionally ``lang``, ``charset``, ``note`` (free text; ``site=<domain>`` in it names
the page's site) and ``meta`` (the page's labelled metadata: title, authors, published, ...).
"""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

#: fields every index line must have
REQUIRED_FIELDS = ("id", "file", "is_article")
_SITE_RE = re.compile(r"(?:^|[;,\s])site=([^;,\s]+)")


@dataclass(frozen=True, slots=True)
class LabelledPage:
    id: str
    source: str
    url: str | None
    is_article: bool
    gold_text: str
    lang: str | None
    charset: str | None
    body: bytes
    note: str = ""
    meta: dict | None = None

    @property
    def site(self) -> str:
        """The page's site: ``site=`` in the note, else the URL's registrable domain, else the id."""
        found = _SITE_RE.search(self.note)
        if found:
            return registrable_domain(found.group(1))
        host = urlsplit(self.url).hostname if self.url else None
        return registrable_domain(host) if host else self.id


#: second-level labels under which country-code domains register names (``bbc.co.uk``, ``abc.net.au``)
_SECOND_LEVELS = frozenset("co com net org gov edu ac ne or go gob nic mil".split())


def registrable_domain(host: str) -> str:
    """The part of a host name a site registers: ``edition.cnn.com`` -> ``cnn.com``,
    ``www.bbc.co.uk`` -> ``bbc.co.uk`` (country-code second levels by a short list, no suffix file)."""
    labels = host.lower().rstrip(".").split(".")
    if len(labels) >= 3 and len(labels[-1]) == 2 and labels[-2] in _SECOND_LEVELS:
        return ".".join(labels[-3:])
    return ".".join(labels[-2:])


class CorpusError(ValueError):
    """The folder is not a corpus in the documented format (the message says what is wrong)."""


def iter_corpus(folder: str | Path) -> Iterator[LabelledPage]:
    """Pages of the corpus at ``folder``, in index order, read one at a time."""
    folder = Path(folder)
    index = folder / "index.jsonl"
    if not index.is_file():
        raise CorpusError(f"{folder}: no index.jsonl (see docs/corpus-format.md)")
    with open(index, encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise CorpusError(f"{index}:{number}: not a JSON object: {exc}") from None
            if not isinstance(row, dict):
                raise CorpusError(f"{index}:{number}: not a JSON object")
            missing = [name for name in REQUIRED_FIELDS if name not in row]
            if missing:
                raise CorpusError(f"{index}:{number}: missing field {', '.join(map(repr, missing))}")
            try:
                path = folder / row["file"]
                data = path.read_bytes()
                if path.suffix == ".gz":
                    data = gzip.decompress(data)
                yield LabelledPage(
                    id=str(row["id"]),
                    source=str(row.get("source") or "unknown"),
                    url=row.get("url"),
                    is_article=bool(row["is_article"]),
                    gold_text=row.get("gold_text") or "",
                    lang=row.get("lang"),
                    charset=row.get("charset"),
                    body=data,
                    note=str(row.get("note") or ""),
                    meta=row.get("meta") if isinstance(row.get("meta"), dict) else None,
                )
            except (TypeError, OSError) as exc:
                raise CorpusError(f"{index}:{number}: {type(exc).__name__}: {exc}") from None


def load_corpus(folder: str | Path) -> list[LabelledPage]:
    return list(iter_corpus(folder))
