"""A generated blog: posts under dated URLs, many tag, date and page-number listings whose pages show
post excerpts or whole posts, and service pages. Built from the sentence patterns and word lists of
``duplicate_site`` (no real page); seeded, so every run serves the same site, at any size.

``blog(posts)`` gives the pages (path -> (body, content type)) and the kind of each path
(``article``, ``listing``, ``home`` or ``service``). A listing of whole posts is the page a judge of
one page alone takes for an article: only the site shows it repeats its posts' text under other URLs.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from html import escape

from duplicate_site import PEOPLE, PLACES, SUBJECTS, paragraph

TAGS = [*SUBJECTS, "travel", "weather", "history", "food", "music", "science"]
#: tags whose listings show whole posts, one per page (the others: excerpts of five)
WHOLE_POST_TAGS = frozenset(TAGS[::2])
EXCERPTS_PER_PAGE = 5
SERVICE = {
    "/about/": ("About this blog", "This blog is written by a small group of neighbours who report on the town."),
    "/contact/": ("Contact", "Write to the editors with corrections, tips and questions; we answer within a week."),
    "/privacy/": ("Privacy policy", "We keep the addresses of subscribers only to send the newsletter they asked for."),
    "/terms/": ("Terms of use", "Texts may be quoted with a link to the post; photographs belong to their authors."),
}
HTML = "text/html; charset=utf-8"


@dataclass
class Post:
    path: str
    title: str
    date: str
    author: str
    tags: list[str]
    paragraphs: list[str]


#: every BRIEF_EVERY-th post is a brief: one sentence
BRIEF_EVERY = 7


def posts(count: int, seed: int = 11) -> list[Post]:
    """``count`` posts, newest first, each of five or six paragraphs of three or four sentences, or a
    brief (every ``BRIEF_EVERY``-th)."""
    rng = random.Random(seed)
    made = []
    for number in range(count):
        subject = rng.choice(list(SUBJECTS))
        words = SUBJECTS[subject]
        place = rng.choice(PLACES)
        brief = number % BRIEF_EVERY == BRIEF_EVERY - 1
        paragraphs = [
            paragraph(rng, words, place, 1 if brief else rng.randint(3, 4))
            for _ in range(1 if brief else rng.randint(5, 6))
        ]
        year, month, day = 2026 - number // 300, 12 - (number // 25) % 12, 28 - number % 25
        slug = f"{place.lower().replace(' ', '-')}-{words[0].replace(' ', '-')}-{number}"
        tags = [subject, *rng.sample([tag for tag in TAGS if tag != subject], 2)]
        title = f"{place}: the {words[0]} and the {words[rng.randint(1, 7)]}"
        path = f"/{year}/{month:02d}/{day:02d}/{slug}/"
        made.append(Post(path, title, f"{year}-{month:02d}-{day:02d}", rng.choice(PEOPLE), tags, paragraphs))
    return made


def frame(title: str, main: str, recent: list[Post], months: list[str]) -> bytes:
    """A page of the blog: header, navigation, the main part, a sidebar of recent posts and monthly
    archives, a footer."""
    archives = "".join(f'<li><a href="{month}">{month.strip("/")}</a></li>' for month in months)
    tags = " ".join(f'<li><a href="/tag/{tag}/">{tag}</a></li>' for tag in TAGS)
    sidebar = "".join(f'<li><a href="{post.path}">{escape(post.title)}</a></li>' for post in recent)
    service = " | ".join(f'<a href="{path}">{escape(name)}</a>' for path, (name, _) in SERVICE.items())
    return (
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
        f"<title>{escape(title)} - Town Notes</title></head>\n<body>\n"
        "<header class='site-header'><a class='logo' href='/'>Town Notes</a>\n"
        f"<nav class='main-nav'><ul>{tags}</ul></nav></header>\n"
        f"<main id='content'>\n{main}\n</main>\n"
        f"<aside class='sidebar'><h3>Recent posts</h3><ul>{sidebar}</ul>"
        f"<h3>Archives</h3><ul>{archives}</ul></aside>\n"
        f"<footer class='site-footer'><p>{service}</p><p>Town Notes, written by neighbours.</p></footer>\n"
        "</body></html>\n"
    ).encode()


def post_html(post: Post, whole: bool, level: str = "h1") -> str:
    """One post as an ``<article>``: whole, or its title, first sentences and a link to the rest."""
    tags = ", ".join(f'<a rel="tag" href="/tag/{tag}/">{tag}</a>' for tag in post.tags)
    heading = f'<{level} class="entry-title"><a href="{post.path}">{escape(post.title)}</a></{level}>'
    meta = f'<p class="entry-meta"><time datetime="{post.date}">{post.date}</time> by {escape(post.author)}</p>'
    if whole:
        body = "\n".join(f"<p>{escape(text)}</p>" for text in post.paragraphs)
    else:
        first = ". ".join(post.paragraphs[0].split(". ")[:2]).rstrip(".") + "."
        body = f'<p>{escape(first)}</p>\n<p><a class="more-link" href="{post.path}">Continue reading</a></p>'
    return (
        f'<article class="post">\n{heading}\n{meta}\n<div class="entry-content">\n{body}\n</div>\n'
        f'<footer class="entry-footer">Tagged {tags}</footer>\n</article>'
    )


def listing(title: str, shown: list[Post], whole: bool, older: str | None, *furniture: list) -> bytes:
    articles = "\n".join(post_html(post, whole, "h2") for post in shown)
    pager = f'<nav class="pagination"><a class="next" href="{older}">Older posts</a></nav>' if older else ""
    return frame(title, f'<h1 class="archive-title">{escape(title)}</h1>\n{articles}\n{pager}', *furniture)


def paged(base: str, count: int, per_page: int) -> list[str]:
    """The paths of the pages of a listing of ``count`` posts: ``base``, then ``base``page/2/, ..."""
    pages = max(1, -(-count // per_page))
    return [base] + [f"{base}page/{number}/" for number in range(2, pages + 1)]


def blog(count: int = 60, seed: int = 11) -> tuple[dict[str, tuple[bytes, str]], dict[str, str]]:
    """The pages of a blog of ``count`` posts, and the kind of each path."""
    made = posts(count, seed)
    recent = made[:5]
    months = sorted({post.path[:9] for post in made}, reverse=True)
    pages: dict[str, tuple[bytes, str]] = {}
    kinds: dict[str, str] = {}

    def add(path: str, body: bytes, kind: str) -> None:
        pages[path] = (body, HTML)
        kinds[path] = kind

    for index, post in enumerate(made):
        related = [made[(index + step) % len(made)] for step in (1, 2, 3)]
        more = "".join(f'<li><a href="{other.path}">{escape(other.title)}</a></li>' for other in related)
        main = f'{post_html(post, True)}\n<section class="related"><h3>Read next</h3><ul>{more}</ul></section>'
        add(post.path, frame(post.title, main, recent, months), "article")
    by_tag = {tag: [post for post in made if tag in post.tags] for tag in TAGS}
    for tag, tagged in by_tag.items():
        whole = tag in WHOLE_POST_TAGS
        per_page = 1 if whole else EXCERPTS_PER_PAGE
        paths = paged(f"/tag/{tag}/", len(tagged), per_page)
        for number, path in enumerate(paths):
            shown = tagged[number * per_page : (number + 1) * per_page]
            older = paths[number + 1] if number + 1 < len(paths) else None
            add(path, listing(f"Posts tagged {tag}", shown, whole, older, recent, months), "listing")
    by_month: dict[str, list[Post]] = {}
    for post in made:
        by_month.setdefault(post.path[:9], []).append(post)
    for month, dated in by_month.items():
        paths = paged(month, len(dated), EXCERPTS_PER_PAGE)
        for number, path in enumerate(paths):
            shown = dated[number * EXCERPTS_PER_PAGE : (number + 1) * EXCERPTS_PER_PAGE]
            older = paths[number + 1] if number + 1 < len(paths) else None
            add(path, listing(f"Archive {month.strip('/')}", shown, False, older, recent, months), "listing")
    paths = paged("/", len(made), 2)
    for number, path in enumerate(paths):
        older = paths[number + 1] if number + 1 < len(paths) else None
        add(path, listing("Town Notes", made[number * 2 : number * 2 + 2], True, older, recent, months), "home")
    for path, (name, text) in SERVICE.items():
        add(path, frame(name, f"<h1>{escape(name)}</h1>\n<p>{escape(text)}</p>", recent, months), "service")
    return pages, kinds
