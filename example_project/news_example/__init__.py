"""Example Scrapy project: a news crawl whose stored items get main text and article probability."""
