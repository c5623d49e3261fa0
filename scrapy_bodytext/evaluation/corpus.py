"""Reader of a labelled corpus folder: ``index.jsonl`` plus the page files it names.

Each line of ``index.jsonl`` is one page: ``id``, ``source``, ``url`` (or null), ``file`` (path
relative to the folder; ``.gz`` files are gunzipped), ``is_article``, ``gold_text`` ("" for
non-articles), ``lang`` and ``charset`` (both optional).
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path


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


class CorpusError(ValueError):
    """The folder is not a corpus in the documented format (the message says what is wrong)."""


def iter_corpus(folder: str | Path) -> Iterator[LabelledPage]:
    """Pages of the corpus at ``folder``, in index order, read one at a time."""
    folder = Path(folder)
    index = folder / "index.jsonl"
    if not index.is_file():
        raise CorpusError(f"{folder}: no index.jsonl (see README, 'Corpus format')")
    with open(index, encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
                path = folder / row["file"]
                data = path.read_bytes()
                if path.suffix == ".gz":
                    data = gzip.decompress(data)
                yield LabelledPage(
                    id=str(row["id"]), source=str(row.get("source") or "unknown"), url=row.get("url"),
                    is_article=bool(row["is_article"]), gold_text=row.get("gold_text") or "",
                    lang=row.get("lang"), charset=row.get("charset"), body=data,
                )
            except (KeyError, TypeError, json.JSONDecodeError, OSError) as exc:
                raise CorpusError(f"{index}:{number}: {type(exc).__name__}: {exc}") from None


def load_corpus(folder: str | Path) -> list[LabelledPage]:
    return list(iter_corpus(folder))
