"""The Scrapy components: the add-on, the settings and their start-up check, the downloader and spider
middlewares, the item pipeline and the review feed. The only layer that imports Scrapy."""
