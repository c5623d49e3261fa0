"""Settings of the example project. scrapy-bodytext is enabled by the ADDONS line alone."""

from pathlib import Path

BOT_NAME = "news_example"
SPIDER_MODULES = ["news_example.spiders"]
NEWSPIDER_MODULE = "news_example.spiders"

# Main text and article probability for every stored item; non-articles are dropped.
ADDONS = {"scrapy_bodytext.Addon": 0}
# The values scrapy-bodytext writes into each item (the default is main_text and article_probability):
BODYTEXT_FIELDS = ["main_text", "article_probability", "title", "published", "authors", "language"]

# Storage after scrapy-bodytext (its pipeline runs at 200): only articles ever reach the database.
ITEM_PIPELINES = {"news_example.pipelines.SQLiteArticlesPipeline": 300}
NEWS_SQLITE_PATH = str(Path(__file__).resolve().parent.parent / "articles.db")

# The review feed: every page stored or dropped with an article probability within
# BODYTEXT_REVIEW_BAND (0.1) of the threshold (0.5), one JSON line each, for a reviewer to check.
BODYTEXT_REJECTED_FEED = {
    str(Path(__file__).resolve().parent.parent / "review.jsonl"): {"format": "jsonlines", "overwrite": True}
}

# The bundled site is read from disk (file:// URLs); `-a start_url=...` crawls of real sites get
# DEPTH_LIMIT, CLOSESPIDER_PAGECOUNT, a download delay and AutoThrottle from the spider (see
# spiders/news.py); any of them can be overridden here or with -s on the command line.
ROBOTSTXT_OBEY = True

FEED_EXPORT_ENCODING = "utf-8"
# INFO shows each dropped non-article on one line, without dumping every stored item.
LOG_LEVEL = "INFO"
