"""A small news site whose stories are published more than once: under tracking-parameter, AMP and
print URLs, re-published after an update, and carried by a wire partner with its own headline, lead
and furniture. Built here from sentence patterns and word lists (no real page); seeded, so every run
serves the same site."""

from __future__ import annotations

import random
from dataclasses import dataclass
from html import escape

PLACES = ["Northport", "Elmridge", "Calder Bay", "Westmoor", "Fenwick", "Ashvale", "Brookhaven", "Stonecross"]
PEOPLE = ["Mara Lindqvist", "Tomas Okafor", "Ines Carvalho", "Pieter Vos", "Leila Haddad", "Owen Price"]
ROLES = ["the mayor", "a council spokesperson", "the harbour master", "a local teacher", "the fire chief"]
SUBJECTS = {
    "ferry": ["ferry", "crossing", "passengers", "timetable", "harbour", "crew", "storm", "pier"],
    "library": ["library", "reading room", "volunteers", "archive", "books", "renovation", "readers", "grant"],
    "bakery": ["bakery", "ovens", "flour", "apprentices", "bread", "market", "customers", "recipe"],
    "glacier": ["glacier", "meltwater", "researchers", "survey", "ice", "valley", "measurements", "summer"],
    "orchestra": ["orchestra", "concert hall", "musicians", "rehearsals", "violins", "audience", "conductor", "season"],
    "bridge": ["bridge", "engineers", "traffic", "repairs", "cables", "detour", "inspection", "river"],
}
PATTERNS = [
    "{Person} told reporters on {day} that the {w0} in {place} would need {n} more weeks before the {w1} could resume.",
    "According to {role}, the {w2} had been planned since {month}, but the {w3} forced a change of course.",
    "Residents of {place} gathered near the {w4} to watch as the {w5} arrived shortly after {hour} o'clock.",
    "The {w6} cost roughly {n} thousand euros, a figure {role} described as modest given the state of the {w7}.",
    "{Person} said the {w1} had surprised everyone, adding that nobody in {place} remembered anything similar.",
    "Work on the {w3} is expected to finish in {month}, when {role} will present the results to the public.",
    "Some {w2} complained about the delays, while others said the {w0} was worth the wait after {n} years.",
    "A second meeting about the {w5} is planned for {day}, and {role} promised to publish the minutes online.",
    "Local shops near the {w4} reported more visitors than usual, which {Person} welcomed in a short statement.",
    "Experts from {place} will study the {w6} over the coming months and compare it with records from {year}.",
]
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
MONTHS = ["March", "April", "June", "September", "October", "November"]


@dataclass
class Story:
    slug: str
    headline: str
    paragraphs: list[str]


def paragraph(rng: random.Random, words: list[str], place: str, sentences: int) -> str:
    """``sentences`` sentences of the patterns about ``words`` in ``place``."""
    made = []
    for pattern in rng.sample(PATTERNS, sentences):
        values = {f"w{i}": word for i, word in enumerate(rng.sample(words, len(words)))}
        made.append(
            pattern.format(
                Person=rng.choice(PEOPLE),
                role=rng.choice(ROLES),
                place=place,
                day=rng.choice(DAYS),
                month=rng.choice(MONTHS),
                hour=rng.randint(6, 11),
                n=rng.randint(2, 90),
                year=rng.randint(1950, 2015),
                **values,
            )
        )
    return " ".join(made)


def stories(seed: int = 7) -> list[Story]:
    """One story per subject, six paragraphs of four sentences each."""
    rng = random.Random(seed)
    made = []
    for subject, words in SUBJECTS.items():
        place = rng.choice(PLACES)
        paragraphs = [paragraph(rng, words, place, 4) for _ in range(6)]
        headline = f"{place}: the {words[0]} and the long wait for the {words[1]}"
        made.append(Story(subject, headline, paragraphs))
    return made


def page(title: str, paragraphs: list[str], site: str, nav: list[tuple[str, str]]) -> bytes:
    """An article page in the furniture of ``site``."""
    links = " | ".join(f'<a href="{href}">{escape(text)}</a>' for href, text in nav)
    body = "\n".join(f"    <p>{escape(text)}</p>" for text in paragraphs)
    return (
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{escape(title)} - {site}</title></head>\n'
        f'<body>\n<header><div class="brand">{site}</div><nav>{links}</nav></header>\n'
        f'<main><article>\n    <h1>{escape(title)}</h1>\n    <p class="byline">By staff reporters</p>\n{body}\n'
        f'</article></main>\n<aside><h2>Most read</h2><ul><li><a href="/index.html">Weather warnings for the weekend</a></li>'
        f'<li><a href="/index.html">Council budget vote delayed</a></li></ul></aside>\n'
        f'<footer><a href="/imprint.html">Imprint</a> | <a href="/privacy.html">Privacy</a> | {site}</footer>\n</body></html>'
    ).encode()


WIRE_LINE = "This story was first published by a partner news agency and is republished with permission."


def copies(story: Story, other: Story) -> dict[str, tuple[str, bytes]]:
    """Every published copy of ``story``: path (with query) -> (kind, page bytes); ``other`` lends the
    wire copy its rewritten lead."""
    home = [("/index.html", "Home"), ("/section-news.html", "News")]
    wire_nav = [("/index.html", "Front page"), ("/section-news.html", "Wire"), ("/index.html", "Opinion")]
    original = page(story.headline, story.paragraphs, "Coastal Courier", home)
    updated = [
        *story.paragraphs[:3],
        story.paragraphs[3] + " The council confirmed the figures on Friday.",
        *story.paragraphs[4:],
        "Update: this article was amended to add the council's confirmation.",
    ]
    wire = [other.paragraphs[0].replace(other.slug, story.slug), *story.paragraphs[1:], WIRE_LINE]
    return {
        f"/news/{story.slug}.html": ("original", original),
        f"/news/{story.slug}.html?utm_source=newsletter&utm_medium=email": ("tracking", original),
        f"/amp/news/{story.slug}.html": (
            "amp",
            page(story.headline, story.paragraphs, "Coastal Courier AMP", home[:1]),
        ),
        f"/news/{story.slug}-updated.html": (
            "update",
            page("Updated: " + story.headline, updated, "Coastal Courier", home),
        ),
        f"/wire/{story.slug}.html": (
            "wire",
            page(f"Wire: {story.headline.split(':')[0]} news", wire, "Daily Wire", wire_nav),
        ),
    }


def site() -> tuple[dict[str, tuple[bytes, str]], dict[str, tuple[str, str]]]:
    """The served pages (path -> (bytes, content type)) and, for each copy's URL path with query,
    (story slug, kind of copy); the index and section pages link to every copy."""
    made = stories()
    served: dict[str, tuple[bytes, str]] = {}
    kinds: dict[str, tuple[str, str]] = {}
    for number, story in enumerate(made):
        for target, (kind, body) in copies(story, made[(number + 1) % len(made)]).items():
            served.setdefault(target.split("?")[0], (body, "text/html; charset=utf-8"))
            kinds[target] = (story.slug, kind)
    links = "".join(f'<li><a href="{target}">{slug} ({kind})</a></li>' for target, (slug, kind) in kinds.items())
    listing = f'<!DOCTYPE html><html lang="en"><head><title>News</title></head><body><h1>News</h1><ul>{links}</ul></body></html>'
    served["/index.html"] = (listing.encode("utf-8"), "text/html; charset=utf-8")
    served["/section-news.html"] = (
        listing.replace("<h1>News</h1>", "<h1>Section</h1>").encode(),
        "text/html; charset=utf-8",
    )
    return served, kinds
