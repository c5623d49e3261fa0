"""Storage: articles into SQLite. The pattern for any database (see docs/example-project.md).

``ITEM_PIPELINES`` places this pipeline at 300, after scrapy-bodytext's pipeline (200), so every item
it receives already has ``main_text`` and ``article_probability`` and non-articles never reach it.
"""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from itemadapter import ItemAdapter

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

SCHEMA = """
CREATE TABLE IF NOT EXISTS articles (
    url TEXT PRIMARY KEY,
    title TEXT,
    language TEXT,
    article_probability REAL NOT NULL,
    main_text TEXT NOT NULL,
    stored_at TEXT NOT NULL
)
"""

UPSERT = """
INSERT INTO articles (url, title, language, article_probability, main_text, stored_at)
VALUES (:url, :title, :language, :article_probability, :main_text, :stored_at)
ON CONFLICT (url) DO UPDATE SET
    title = excluded.title, language = excluded.language,
    article_probability = excluded.article_probability, main_text = excluded.main_text,
    stored_at = excluded.stored_at
"""


class SQLiteArticlesPipeline:
    """Writes each item to the ``articles`` table of ``NEWS_SQLITE_PATH`` (one row per URL)."""

    def __init__(self, crawler: Crawler, path: str):
        self.crawler = crawler
        self.path = path
        self.connection: sqlite3.Connection | None = None

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> SQLiteArticlesPipeline:
        return cls(crawler, crawler.settings.get("NEWS_SQLITE_PATH", "articles.db"))

    def open_spider(self) -> None:
        self.connection = sqlite3.connect(self.path)
        self.connection.execute(SCHEMA)

    def process_item(self, item: Any) -> Any:
        assert self.connection is not None
        row = ItemAdapter(item).asdict()
        row.setdefault("title", None)
        row.setdefault("language", None)
        row["stored_at"] = datetime.now(UTC).isoformat(timespec="seconds")
        with self.connection:  # one transaction per item: a crash loses nothing already stored
            self.connection.execute(UPSERT, row)
        assert self.crawler.stats is not None
        self.crawler.stats.inc_value("news_example/sqlite/stored")
        return item

    def close_spider(self) -> None:
        if self.connection is not None:
            self.connection.close()
            self.connection = None
