#!/usr/bin/env python3
"""Builds the bundled offline news site (``news_example/site/``) from the article sources in
``sitegen/articles/``: article pages wrapped in realistic boilerplate, plus home, section and tag pages.

Run from ``example_project/``: ``python sitegen/build.py`` rewrites the site; ``--check`` exits 1 when
the committed site differs from what the sources produce. ``manifest.json`` lists every page with what a
correct extraction must contain (first and last paragraph) and the boilerplate it must not.
"""

from __future__ import annotations

import argparse
import html
import json
import math
import re
import sys
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from ui_text import AUTHOR_BIOS, DATE_FORMATS, MONTHS, SECTION_INTROS, SECTION_SLUGS, SITE_NAME, UI

HERE = Path(__file__).resolve().parent
SITE = HERE.parent / "news_example" / "site"
CJK_LANGS = ("zh", "ja")
INLINE = re.compile(r"\[([^\]]+)\]\(([^)]+)\)|\*\*([^*]+)\*\*|\*([^*]+)\*")

STYLE = """body{font-family:Georgia,serif;margin:0;color:#222}.masthead,.primary-nav,footer{background:#10263b;color:#fff}
.layout{display:flex;gap:2rem;max-width:72rem;margin:auto}main{flex:3}.sidebar{flex:1}
.cookie-banner{position:fixed;bottom:0;left:0;right:0;background:#fff;border-top:2px solid #10263b;padding:1rem}
.ad{background:#f3f3f3;text-align:center;font-size:.8rem}.teaser{border-bottom:1px solid #ddd}"""


#: ways an article page states its metadata: schema.org JSON-LD, Open Graph / ``article:*`` meta tags,
#: or only what readers see (the byline and a dated line, no ``<time datetime>``); every page also
#: has its ``<title>`` (with the site name), ``<h1>`` and ``<html lang>``
METADATA_STYLES = ("json-ld", "meta", "byline")


@dataclass(frozen=True)
class Article:
    slug: str
    title: str
    section: str
    tags: tuple[str, ...]
    author: str
    published: date
    standfirst: str
    caption: str
    lang: str
    encoding: str
    declares: str  # how the page states title, date, author and language: see METADATA_STYLES
    blocks: tuple[tuple[str, object], ...]
    comments: tuple[tuple[str, str], ...]

    @property
    def path(self) -> str:
        return f"article/{self.slug}.html"


# ---------------------------------------------------------------------------------------------- sources


def parse_article(source: Path) -> Article:
    """One source file: ``key: value`` header, ``---``, body blocks, optional ``=== comments``."""
    header, _, rest = source.read_text("utf-8").partition("\n---\n")
    body, _, comments = rest.partition("\n=== comments\n")
    meta = dict(line.split(": ", 1) for line in header.strip().splitlines())
    return Article(
        slug=source.stem.split("-", 1)[1],
        title=meta["title"],
        section=meta["section"],
        tags=tuple(t.strip() for t in meta["tags"].split(",")),
        author=meta["author"],
        published=date.fromisoformat(meta["date"]),
        standfirst=meta["standfirst"],
        caption=meta["caption"],
        lang=meta.get("lang", "en"),
        encoding=meta.get("encoding", "utf-8"),
        declares=meta["declares"],
        blocks=tuple(parse_block(chunk) for chunk in re.split(r"\n\s*\n", body.strip())),
        comments=tuple(tuple(line.split(" | ", 1)) for line in comments.strip().splitlines() if line),
    )


def parse_block(chunk: str) -> tuple[str, object]:
    lines = [line.strip() for line in chunk.strip().splitlines()]
    if lines == ["[ad]"]:
        return ("ad", None)
    if lines[0].startswith("## "):
        return ("h2", lines[0][3:])
    if all(line.startswith("- ") for line in lines):
        return ("ul", tuple(line[2:] for line in lines))
    if all(line.startswith("|") for line in lines):
        return ("table", tuple(tuple(cell.strip() for cell in line.strip("|").split("|")) for line in lines))
    return ("p", " ".join(lines))


def inline_html(text: str, root: str) -> str:
    """Escapes text and turns ``[t](@slug)``, ``[t](https://...)``, ``**strong**`` and ``*em*`` into HTML."""

    def replace(m: re.Match[str]) -> str:
        if m.group(1) is not None:
            target = m.group(2)
            href = f"{root}article/{target[1:]}.html" if target.startswith("@") else target
            return f'<a href="{href}">{m.group(1)}</a>'
        if m.group(3) is not None:
            return f"<strong>{m.group(3)}</strong>"
        return f"<em>{m.group(4)}</em>"

    return INLINE.sub(replace, html.escape(text, quote=False))


def inline_plain(text: str) -> str:
    return INLINE.sub(lambda m: m.group(1) or m.group(3) or m.group(4), text)


# ------------------------------------------------------------------------------------------- fragments


def esc(text: str) -> str:
    return html.escape(text)


def format_date(day: date, lang: str) -> str:
    month = MONTHS[lang][day.month - 1] if lang in MONTHS else ""
    return DATE_FORMATS[lang].format(day=day.day, month=month, month_number=day.month, year=day.year)


def article_text(article: Article) -> str:
    """The article's own prose: title, standfirst and every body block."""
    parts = [article.title, article.standfirst]
    for kind, value in article.blocks:
        if kind == "ul":
            parts.extend(value)
        elif kind == "table":
            parts.extend(cell for row in value for cell in row)
        elif value:
            parts.append(value)
    return inline_plain("\n".join(parts))


def reading_minutes(article: Article) -> int:
    text = article_text(article)
    units = len(text) / 500 if article.lang in CJK_LANGS else len(text.split()) / 200
    return max(1, math.ceil(units))


def nav(ui: dict, root: str, current: str) -> str:
    items = [f'<li><a href="{root}index.html">{esc(ui["sections"]["home"])}</a></li>']
    for slug in SECTION_SLUGS:
        active = ' class="active" aria-current="page"' if slug == current else ""
        items.append(f'<li{active}><a href="{root}section/{slug}.html">{esc(ui["sections"][slug])}</a></li>')
    return f'<nav class="primary-nav" aria-label="Sections"><ul>{"".join(items)}</ul></nav>'


def teaser(article: Article, root: str, level: str = "h3", image: bool = True) -> str:
    href = f"{root}{article.path}"
    picture = (
        (
            f'<a class="teaser-image" href="{href}" tabindex="-1">'
            f'<img src="{root}media/{article.slug}-thumb.jpg" alt="" loading="lazy"></a>'
        )
        if image
        else ""
    )
    meta = f"{UI['en']['sections'][article.section]} · {format_date(article.published, 'en')}"
    return (
        f'<article class="teaser">{picture}<{level} class="teaser-title"><a href="{href}">'
        f'{esc(article.title)}</a></{level}><p class="teaser-summary">{esc(article.standfirst)}</p>'
        f'<p class="teaser-meta">{esc(meta)}</p></article>'
    )


def most_read(ui: dict, root: str, articles: list[Article]) -> str:
    items = "".join(f'<li><a href="{root}{a.path}">{esc(a.title)}</a></li>' for a in articles)
    return f'<section class="most-read"><h2>{esc(ui["most_read"])}</h2><ol>{items}</ol></section>'


def ad(ui: dict, slot: str, text: str) -> str:
    return (
        f'<div class="ad ad-{slot}" data-ad-slot="{slot}"><span class="ad-label">{esc(ui["ad_label"])}</span>'
        f'<a href="https://ads.brightwave.example/click?slot={slot}" rel="sponsored nofollow">{esc(text)}</a></div>'
    )


def partner_box(ui: dict) -> str:
    links = "".join(
        f'<li><a href="https://outbrook.example/r?id={i}" rel="sponsored">{esc(t)}</a></li>'
        for i, t in enumerate(ui["partner_links"], 1)
    )
    return (
        f'<section class="partner-content"><h2>{esc(ui["partner"])}</h2><ul>{links}</ul>'
        f'<p class="partner-by">{esc(ui["partner_by"])}</p></section>'
    )


def newsletter(ui: dict) -> str:
    return (
        f'<section class="newsletter"><h2>{esc(ui["newsletter_title"])}</h2><p>{esc(ui["newsletter_text"])}</p>'
        f'<form action="#newsletter"><input type="email" placeholder="{esc(ui["email_placeholder"])}">'
        f'<button type="submit">{esc(ui["newsletter_button"])}</button></form></section>'
    )


def page(
    *,
    lang: str,
    encoding: str,
    title: str,
    root: str,
    current: str,
    body_class: str,
    main: str,
    sidebar: str,
    ticker: Article,
    head_extra: str = "",
) -> str:
    """The site chrome every page shares: masthead, navigation, ticker, ads, cookie banner, footer."""
    ui = UI[lang]
    company = "".join(f'<li><a href="#company-{i}">{esc(c)}</a></li>' for i, c in enumerate(ui["company"], 1))
    sections = "".join(f'<li><a href="{root}section/{s}.html">{esc(ui["sections"][s])}</a></li>' for s in SECTION_SLUGS)
    return f"""<!DOCTYPE html>
<html lang="{lang}">
<head>
<meta charset="{encoding}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{esc(title)} | {SITE_NAME}</title>
{head_extra}<style>{STYLE}</style>
<script>window.dataLayer=window.dataLayer||[];dataLayer.push({{"page_type":"{body_class}"}});</script>
</head>
<body class="{body_class}">
<a class="skip-link" href="#main">{esc(ui["skip"])}</a>
<header class="masthead">
<div class="masthead-top"><a class="logo" href="{root}index.html">{SITE_NAME}</a>
<span class="tagline">{esc(ui["tagline"])}</span>
<form class="search" action="#search"><input type="search" placeholder="{esc(ui["search"])}"></form>
<a class="subscribe" href="#subscribe">{esc(ui["subscribe"])}</a> <a class="sign-in" href="#sign-in">{esc(ui["sign_in"])}</a></div>
{nav(ui, root, current)}
</header>
<div class="ticker"><strong>{esc(ui["breaking"])}</strong> <a href="{root}{ticker.path}">{esc(ticker.title)}</a></div>
{ad(ui, "leaderboard", ui["ad_leaderboard"])}
<div class="layout">
<main id="main">
{main}
</main>
<aside class="sidebar">
{sidebar}
{ad(ui, "mpu", ui["ad_mpu"])}
{partner_box(ui)}
</aside>
</div>
<footer class="site-footer">
<div class="footer-logo">{SITE_NAME}</div>
<ul class="footer-sections">{sections}</ul>
<ul class="footer-company">{company}</ul>
<p class="legal">{esc(ui["legal"])}</p>
</footer>
<div class="cookie-banner" role="dialog" aria-label="Cookies">
<p>{esc(ui["cookie"])}</p>
<button type="button">{esc(ui["accept"])}</button> <button type="button">{esc(ui["reject"])}</button>
<a href="#cookie-settings">{esc(ui["manage"])}</a>
</div>
<noscript><img src="https://metrics.ledger.example/pixel.gif" alt=""></noscript>
<script src="https://metrics.ledger.example/tag.js" async></script>
</body>
</html>
"""


# ---------------------------------------------------------------------------------------------- pages


def article_body(article: Article, root: str) -> str:
    ui = UI[article.lang]
    parts = []
    for kind, value in article.blocks:
        if kind == "p":
            parts.append(f"<p>{inline_html(value, root)}</p>")
        elif kind == "h2":
            parts.append(f"<h2>{inline_html(value, root)}</h2>")
        elif kind == "ul":
            parts.append("<ul>" + "".join(f"<li>{inline_html(item, root)}</li>" for item in value) + "</ul>")
        elif kind == "table":
            head, *rows = value
            cells = "".join(f"<th>{esc(c)}</th>" for c in head)
            body = "".join("<tr>" + "".join(f"<td>{esc(c)}</td>" for c in row) + "</tr>" for row in rows)
            parts.append(f'<table class="data-table"><thead><tr>{cells}</tr></thead><tbody>{body}</tbody></table>')
        else:
            parts.append(
                f'<aside class="inline-ad">{ad(ui, "inline", ui["ad_inline_offer"])}'
                f'<p class="ad-continue">{esc(ui["ad_inline"])}</p></aside>'
            )
    return "\n".join(parts)


def share_bar(ui: dict, url: str) -> str:
    targets = (
        "https://www.facebook.com/sharer/sharer.php?u=",
        "https://x.com/intent/post?url=",
        "https://www.linkedin.com/sharing/share-offsite/?url=",
        "mailto:?body=",
        "#copy-link",
    )
    links = "".join(
        f'<li><a href="{t}{url if not t.startswith("#") else ""}">{esc(label)}</a></li>'
        for t, label in zip(targets, ui["share_targets"])
    )
    return f'<div class="share-bar"><span>{esc(ui["share"])}</span><ul>{links}</ul></div>'


def comments_section(article: Article) -> str:
    ui = UI[article.lang]
    items = "".join(
        f'<li class="comment"><div class="comment-meta"><strong>{esc(name)}</strong> '
        f"<time>{esc(ui['ago'].format(hours=2 + 3 * i))}</time></div><p>{esc(text)}</p>"
        f'<div class="comment-actions"><a href="#reply">{esc(ui["reply"])}</a> '
        f'<a href="#report">{esc(ui["report"])}</a></div></li>'
        for i, (name, text) in enumerate(article.comments)
    )
    return (
        f'<section class="comments" id="comments"><h2>{esc(ui["comments"])} ({len(article.comments)})</h2>'
        f'<p class="comment-policy">{esc(ui["comment_policy"])}</p><ol>{items}</ol>'
        f'<button type="button">{esc(ui["more_comments"])}</button></section>'
    )


def related_articles(article: Article, articles: list[Article]) -> list[Article]:
    """Three other articles in the same language sharing the most tags (then the section), newest first."""

    def score(other: Article) -> tuple[bool, int, date]:
        return (
            other.lang == article.lang,
            len(set(other.tags) & set(article.tags)) * 2 + (other.section == article.section),
            other.published,
        )

    return sorted((a for a in articles if a is not article), key=score, reverse=True)[:3]


def metadata_head(article: Article, url: str) -> str:
    """The ``<head>`` lines declaring the article's metadata, in the article's style."""
    lines = [f'<meta name="description" content="{esc(article.standfirst)}">']
    if article.declares == "json-ld":
        ld = json.dumps(
            {
                "@context": "https://schema.org",
                "@type": "NewsArticle",
                "headline": article.title,
                "datePublished": article.published.isoformat(),
                "inLanguage": article.lang,
                "author": {"@type": "Person", "name": article.author},
                "publisher": {"@type": "NewsMediaOrganization", "name": SITE_NAME},
                "url": url,
            },
            ensure_ascii=True,
        )
        lines.append(f'<script type="application/ld+json">{ld}</script>')
    elif article.declares == "meta":
        lines += [
            '<meta property="og:type" content="article">',
            f'<meta property="og:title" content="{esc(article.title)}">',
            f'<meta property="og:site_name" content="{SITE_NAME}">',
            f'<meta property="article:published_time" content="{article.published.isoformat()}">',
            f'<meta name="author" content="{esc(article.author)}">',
        ]
    elif article.declares != "byline":
        raise ValueError(f"{article.slug}: declares must be one of {', '.join(METADATA_STYLES)}")
    return "".join(line + "\n" for line in lines)


def shown_date(article: Article) -> str:
    """The date in the byline: a ``<time datetime>`` element, or only text on ``byline`` pages."""
    shown = esc(format_date(article.published, article.lang))
    if article.declares == "byline":
        return f'<span class="date">{shown}</span>'
    return f'<time datetime="{article.published.isoformat()}">{shown}</time>'


def article_page(article: Article, articles: list[Article], popular: list[Article]) -> str:
    ui, root = UI[article.lang], "../"
    sep, dot = ui["sep"], ui["dot"]
    section = ui["sections"][article.section]
    url = f"https://ledger.example/{article.path}"
    related = "".join(f"<li>{teaser(a, root, image=False)}</li>" for a in related_articles(article, articles))
    tags = "".join(f'<li><a href="{root}tag/{t}.html">{esc(t.replace("-", " "))}</a></li>' for t in article.tags)
    head = metadata_head(article, url)
    main = f"""<article class="story">
<nav class="breadcrumbs"><a href="{root}index.html">{esc(ui["sections"]["home"])}</a> {sep} <a href="{root}section/{article.section}.html">{esc(section)}</a></nav>
<h1>{esc(article.title)}</h1>
<p class="standfirst">{esc(article.standfirst)}</p>
<div class="byline"><span class="author">{esc(ui["by"].format(author=article.author))}</span> {dot} {shown_date(article)} {dot} <span>{esc(ui["read_time"].format(minutes=reading_minutes(article)))}</span></div>
{share_bar(ui, url)}
<figure class="lead-image"><img src="{root}media/{article.slug}.jpg" alt="{esc(article.caption)}"><figcaption>{esc(article.caption)} <span class="credit">{esc(ui["photo"])}</span></figcaption></figure>
<div class="article-body">
{article_body(article, root)}
</div>
<div class="tags"><span>{esc(ui["topics"])}</span><ul>{tags}</ul></div>
<aside class="author-bio"><p>{esc(AUTHOR_BIOS[article.author])}</p></aside>
{share_bar(ui, url)}
</article>
{newsletter(ui)}
<section class="related"><h2>{esc(ui["related"])}</h2><ul>{related}</ul></section>
{comments_section(article)}"""
    return page(
        lang=article.lang,
        encoding=article.encoding,
        title=article.title,
        root=root,
        current=article.section,
        body_class="article-page",
        main=main,
        sidebar=most_read(ui, root, popular),
        ticker=popular[0],
        head_extra=head,
    )


def listing_page(
    *,
    heading: str,
    intro: str,
    stories: list[Article],
    root: str,
    current: str,
    articles: list[Article],
    popular: list[Article],
    tag_cloud: str,
) -> str:
    lead, *rest = stories
    main = (
        f'<h1 class="listing-title">{esc(heading)}</h1>\n<p class="listing-intro">{esc(intro)}</p>\n'
        f'<section class="lead-story">{teaser(lead, root, level="h2")}</section>\n'
        f'<div class="story-list">{"".join(teaser(a, root) for a in rest)}</div>\n{tag_cloud}'
    )
    return page(
        lang="en",
        encoding="utf-8",
        title=heading,
        root=root,
        current=current,
        body_class="listing-page",
        main=main,
        sidebar=most_read(UI["en"], root, popular),
        ticker=popular[0],
    )


def home_page(articles: list[Article], popular: list[Article], tag_cloud: str) -> str:
    ui, root = UI["en"], ""
    top, *_ = articles
    blocks = []
    for slug in SECTION_SLUGS:
        stories = [a for a in articles if a.section == slug][:3]
        blocks.append(
            f'<section class="section-block"><h2><a href="section/{slug}.html">{esc(ui["sections"][slug])}'
            f"</a></h2>{''.join(teaser(a, root, image=False) for a in stories)}</section>"
        )
    main = (
        f'<h1 class="visually-hidden">{SITE_NAME}</h1>\n<section class="lead-story">{teaser(top, root, level="h2")}'
        f'</section>\n<div class="top-stories">{"".join(teaser(a, root) for a in articles[1:5])}</div>\n'
        f"{newsletter(ui)}\n{''.join(blocks)}\n{tag_cloud}"
    )
    return page(
        lang="en",
        encoding="utf-8",
        title="Home",
        root=root,
        current="home",
        body_class="home-page",
        main=main,
        sidebar=most_read(ui, root, popular),
        ticker=popular[0],
    )


def tag_cloud(tags: list[str], root: str) -> str:
    links = "".join(f'<li><a href="{root}tag/{t}.html">{esc(t.replace("-", " "))}</a></li>' for t in tags)
    return f'<section class="tag-cloud"><h2>Topics</h2><ul>{links}</ul></section>'


# ------------------------------------------------------------------------------------------------ site


def encode_page(text: str, encoding: str) -> bytes:
    """Legacy-encoded pages write characters outside their charset as numeric references, as such
    sites do; the article text itself must fit the charset (checked by the caller)."""
    return text.encode(encoding, errors="xmlcharrefreplace")


def manifest_entry(article: Article, articles: list[Article]) -> dict:
    paragraphs = [inline_plain(value) for kind, value in article.blocks if kind == "p"]
    ui = UI[article.lang]
    boilerplate = {
        "cookie_banner": ui["cookie"],
        "newsletter": ui["newsletter_text"],
        "footer": ui["legal"],
        "advertisement": ui["ad_mpu"],
        "banner_advertisement": ui["ad_leaderboard"],
        "author_bio": AUTHOR_BIOS[article.author],
        "comment": article.comments[0][1],
        "comment_policy": ui["comment_policy"],
        "related_summary": related_articles(article, articles)[0].standfirst,
    }
    if any(kind == "ad" for kind, _ in article.blocks):
        boilerplate["inline_advertisement"] = ui["ad_inline_offer"]
    return {
        "path": article.path,
        "kind": "article",
        "lang": article.lang,
        "encoding": article.encoding,
        "title": article.title,
        "published": article.published.isoformat(),
        "authors": [article.author],
        "declares": article.declares,
        "first_paragraph": paragraphs[0],
        "last_paragraph": paragraphs[-1],
        "boilerplate": boilerplate,
    }


def build_site() -> dict[str, bytes]:
    """Every file of the site, by path relative to the site root."""
    articles = sorted(
        (parse_article(p) for p in sorted((HERE / "articles").glob("*.txt"))), key=lambda a: a.published, reverse=True
    )
    popular = [a for a in articles if a.lang == "en"][:5]
    tags = sorted({t for a in articles for t in a.tags})
    files: dict[str, bytes] = {}
    manifest = []
    for article in articles:
        article_text(article).encode(article.encoding)  # the article itself must fit its charset
        files[article.path] = encode_page(article_page(article, articles, popular), article.encoding)
        manifest.append(manifest_entry(article, articles))
    files["index.html"] = home_page(articles, popular, tag_cloud(tags, "")).encode()
    manifest.append({"path": "index.html", "kind": "listing"})
    for slug in SECTION_SLUGS:
        path = f"section/{slug}.html"
        files[path] = listing_page(
            heading=UI["en"]["sections"][slug],
            intro=SECTION_INTROS[slug],
            root="../",
            current=slug,
            stories=[a for a in articles if a.section == slug],
            articles=articles,
            popular=popular,
            tag_cloud=tag_cloud(tags, "../"),
        ).encode()
        manifest.append({"path": path, "kind": "listing"})
    for tag in tags:
        path = f"tag/{tag}.html"
        name = tag.replace("-", " ")
        files[path] = listing_page(
            heading=f"Topic: {name}",
            intro=f"All our coverage tagged {name}, newest first.",
            root="../",
            current="",
            stories=[a for a in articles if tag in a.tags],
            articles=articles,
            popular=popular,
            tag_cloud=tag_cloud(tags, "../"),
        ).encode()
        manifest.append({"path": path, "kind": "listing"})
    files["manifest.json"] = (json.dumps(manifest, ensure_ascii=False, indent=1) + "\n").encode()
    return files


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the committed site is out of date")
    args = parser.parse_args(argv)
    files = build_site()
    if args.check:
        on_disk = {str(p.relative_to(SITE)): p.read_bytes() for p in SITE.rglob("*") if p.is_file()}
        stale = sorted(set(files) ^ set(on_disk) | {p for p in files if on_disk.get(p) != files[p]})
        for path in stale:
            print(f"out of date: {path}", file=sys.stderr)
        return 1 if stale else 0
    for path, data in files.items():
        target = SITE / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    print(f"wrote {len(files)} files to {SITE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
