"""The page front end every method shares: raw bytes sniffed, decoded once, parsed once into a bounded
lxml tree, and flattened into the columns of one ``Document`` (with the page's tokens, language and
what it claims about itself). Nothing here knows about methods, output formats or Scrapy."""
