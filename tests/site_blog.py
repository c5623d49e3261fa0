"""A small blog built for the site-memory tests: posts under dated slugs, a home page and pages of
posts, tag pages; every post ends with the same two furniture lines. Generic text, made here."""

from __future__ import annotations

import random
from dataclasses import dataclass

HOST = "https://blog.example.org"
WORDS = (
    "the river town market morning people water light road stone house garden winter summer "
    "train school teacher children music evening window bridge harbour boat fisher bread village "
    "council meeting weather storm field farmer season road walk story letter history museum"
).split()
FURNITURE = ("Share this story with a friend who likes to read.", "Written by the editors of the weekly letter.")
TAGS = ("river", "music", "weather", "history")


@dataclass(frozen=True)
class BuiltPage:
    url: str
    html: str
    is_article: bool
    kind: str


def _sentence(rng: random.Random) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(12, 22))]
    return " ".join(words).capitalize() + "."


def _paragraph(rng: random.Random) -> str:
    return " ".join(_sentence(rng) for _ in range(rng.randint(4, 7)))


def _slug(rng: random.Random, index: int) -> str:
    words = rng.sample(WORDS, rng.randint(1, 5))
    return "-".join([*words, str(index)]) if index % 7 == 0 else "-".join(words) + f"-{chr(97 + index % 26)}"


def _frame(url: str, title: str, body_class: str, main: str) -> str:
    menu = "".join(f'<li><a href="{HOST}/tag/{tag}/">{tag}</a></li>' for tag in TAGS)
    return (
        f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>{title}</title>"
        f"<link rel='canonical' href='{url}'></head>"
        f"<body class='{body_class}'><header class='site-header'><a href='{HOST}/'>The Weekly Letter</a>"
        f"<nav><ul>{menu}</ul></nav></header><main class='content'>{main}</main>"
        "<footer class='site-footer'><p>Copyright the weekly letter.</p></footer></body></html>"
    )


def build_blog(posts: int = 24, seed: int = 7) -> list[BuiltPage]:
    """The blog's pages, home page first, then posts, tag pages and pages of posts."""
    rng = random.Random(seed)
    items = []
    for index in range(posts):
        slug = _slug(rng, index)
        url = f"{HOST}/2024/{1 + index % 12:02d}/{slug}/"
        title = " ".join(rng.sample(WORDS, 5)).capitalize()
        paragraphs = "".join(f"<p>{_paragraph(rng)}</p>" for _ in range(rng.randint(5, 9)))
        furniture = "".join(f"<p>{line}</p>" for line in FURNITURE)
        main = (
            f"<article class='post'><h1>{title}</h1><p class='meta'>Posted on 2024-{1 + index % 12:02d}-03</p>"
            f"<div class='post-body'>{paragraphs}{furniture}</div></article>"
        )
        items.append((url, title, BuiltPage(url, _frame(url, title, "single", main), True, "article")))
    pages = []

    def listing(url: str, chosen: list[tuple[str, str, BuiltPage]], kind: str) -> BuiltPage:
        entries = "".join(
            f"<li class='entry'><h2><a href='{u}'>{t}</a></h2><p>{_sentence(rng)}</p></li>" for u, t, _ in chosen
        )
        return BuiltPage(
            url, _frame(url, "The Weekly Letter", "list", f"<ul class='posts'>{entries}</ul>"), False, kind
        )

    pages.append(listing(f"{HOST}/", items[:8], "home"))
    pages.extend(page for _, _, page in items)
    for number, tag in enumerate(TAGS):
        pages.append(listing(f"{HOST}/tag/{tag}/", items[number::4], "taxonomy"))
    for number in range(2, 2 + (posts - 1) // 8):
        pages.append(listing(f"{HOST}/page/{number}/", items[(number - 1) * 8 : number * 8], "pagination"))
    return pages
