"""The default method keeps the whole article inside its own region, however the body is built.

One small hand-written page per family of body that loses text when each part is judged alone: a
body split into sibling wrappers, lists, tables, roundup cards, an FAQ, a long quotation, a
continuation block, link-only lines between paragraphs, a short post under its title beside a longer
comment thread, the standfirst in the article's ``<header>``, and negative class words on far
ancestors. Each test checks that every part of the article is in the main text and that the page's
furniture (menu, related links, footer) is not.
"""

from __future__ import annotations

from sample_pages import MENU, SITE

from scrapy_bodytext import extract

NAV = "".join(f'<li><a href="{SITE}/{item.lower()}/">{item}</a></li>' for item in MENU)
RELATED = [f"Five more walks along the coast, part {n}" for n in range(1, 7)]
FOOTER_TEXT = "© 2025 Example Media. All rights reserved."
INTRO = (
    "The coastal path between the two harbours was closed for most of last winter after a storm washed away "
    "a section of the cliff, and it reopened to walkers only at the start of this month."
)
PARAGRAPHS = [
    "Engineers spent four months building a new route further inland, with steps cut into the slope and a "
    "wooden bridge over the stream that used to flood the old path every spring.",
    "Local guides say the new section is steeper than the old one, but that the views over the bay from the "
    "top of the climb are the best anywhere on this part of the coast.",
    "The council has asked walkers to keep to the marked route while the grass on the fresh banks takes root, "
    "and to leave dogs on a lead near the nesting sites on the headland.",
    "Parking at both ends of the walk is limited in summer, so visitors are advised to come by the coastal bus, "
    "which now stops at the harbour every half hour until the evening.",
    "A café in the old lifeboat station at the far end has reopened too, and the owners say bookings for the "
    "summer are already ahead of the years before the storm.",
]
CLOSING = (
    "The full walk takes about four hours at an easy pace. Good boots are needed after rain, when the "
    "steps on the new section can be slippery."
)


def page(title: str, article: str, *, body_class: str = "", wrapper_class: str = "site-content") -> str:
    """A page of today's web around ``article``: a menu, a sidebar of related links and a footer."""
    related = "".join(f'<li><a href="{SITE}/walks/{n}">{text}</a></li>' for n, text in enumerate(RELATED))
    return (
        f'<html lang="en"><head><title>{title} | Example Media</title>'
        f'<meta property="og:title" content="{title}"><meta property="og:type" content="article"></head>'
        f'<body class="{body_class}"><header class="site-header"><nav><ul class="menu">{NAV}</ul></nav></header>'
        f'<div class="{wrapper_class}"><main>{article}</main>'
        f'<aside class="sidebar"><h3>Related</h3><ul>{related}</ul></aside></div>'
        f'<footer><a href="{SITE}/about/">About us</a><p>{FOOTER_TEXT}</p></footer></body></html>'
    )


def main_text(html: str, path: str = "news/2025/05/coastal-path-reopens") -> str:
    return extract(html, url=f"{SITE}/{path}").text


def assert_whole(text: str, parts: list[str]) -> None:
    """Every part of the article is in ``text`` and no furniture is."""
    assert [part for part in parts if part not in text] == [], text
    assert not any(item in text for item in RELATED), text
    assert FOOTER_TEXT not in text, text
    assert "Politics" not in text, text


def test_a_body_split_into_sibling_wrappers_is_kept_whole():
    """Each paragraph in a wrapper of its own, and heading-plus-paragraph sections as siblings."""
    wrapped = "".join(f'<div class="text-block"><p>{p}</p></div>' for p in PARAGRAPHS[:3])
    sections = "".join(
        f'<section class="story-section"><h2>Part {n}</h2><div class="text-block"><p>{p}</p></div></section>'
        for n, p in enumerate(PARAGRAPHS[3:], 1)
    )
    article = f"<article><h1>Coastal path reopens</h1><p>{INTRO}</p>{wrapped}{sections}<p>{CLOSING}</p></article>"
    assert_whole(main_text(page("Coastal path reopens", article)), [INTRO, *PARAGRAPHS, CLOSING])


INGREDIENTS = ["500 g plain flour", "2 teaspoons dried yeast", "1 teaspoon salt", "350 ml warm water"]
STEPS = [
    "Mix the flour, yeast and salt in a large bowl, then pour in the water and stir to a rough dough.",
    "Knead the dough on a floured table for ten minutes, until it is smooth and springs back when pressed.",
    "Leave it covered in a warm place for an hour, shape it into a loaf and bake it for forty minutes.",
]


def test_lists_of_one_line_items_and_of_sentences_are_kept():
    article = (
        f"<article><h1>A simple white loaf</h1><p>{INTRO}</p><h2>Ingredients</h2>"
        f'<ul class="ingredients">{"".join(f"<li>{i}</li>" for i in INGREDIENTS)}</ul>'
        f'<h2>Method</h2><ol class="steps">{"".join(f"<li>{s}</li>" for s in STEPS)}</ol>'
        f"<p>{PARAGRAPHS[0]}</p><p>{CLOSING}</p></article>"
    )
    text = main_text(page("A simple white loaf", article), "recipes/simple-white-loaf")
    assert_whole(text, [INTRO, *INGREDIENTS, *STEPS, PARAGRAPHS[0], CLOSING])


ROWS = [("Harbour to headland", "3.2 km", "1 hour"), ("Headland to bridge", "4.1 km", "1.5 hours")]
ROWS += [
    ("Bridge to lifeboat station", "2.7 km", "50 minutes"),
    ("Lifeboat station to bus stop", "0.8 km", "15 minutes"),
]


def test_a_data_table_in_the_body_is_kept():
    rows = "".join(f"<tr><td>{a}</td><td>{b}</td><td>{c}</td></tr>" for a, b, c in ROWS)
    article = (
        f"<article><h1>Coastal path reopens</h1><p>{INTRO}</p><p>{PARAGRAPHS[0]}</p>"
        f'<figure class="table-wrap"><table><thead><tr><th>Stage</th><th>Distance</th><th>Time</th></tr></thead>'
        f"<tbody>{rows}</tbody></table></figure><p>{PARAGRAPHS[1]}</p><p>{CLOSING}</p></article>"
    )
    text = main_text(page("Coastal path reopens", article))
    assert_whole(text, [INTRO, PARAGRAPHS[0], PARAGRAPHS[1], CLOSING, *(name for name, _, _ in ROWS)])


CARDS = [
    ("Harbour Inn", "A family-run inn on the quay with twelve rooms, most of them looking out over the boats."),
    ("Cliff House", "Three rooms in a Victorian villa above the beach, with breakfast served in the garden."),
    ("Station Lodge", "Simple bunk rooms in the old goods shed, popular with walkers doing the whole path."),
    ("Bay View Farm", "A working farm ten minutes inland whose cottages sleep four and welcome dogs."),
]


def test_roundup_cards_are_kept_with_their_descriptions_and_specs():
    cards = "".join(
        f'<div class="card"><h3 class="card-title">{name}</h3><p class="card-text">{text}</p>'
        f'<ul class="card-specs"><li>Rooms: {n + 3}</li><li>Open all year</li></ul></div>'
        for n, (name, text) in enumerate(CARDS)
    )
    article = (
        f"<article><h1>Where to stay on the coast path</h1><p>{INTRO}</p>"
        f'<div class="cards">{cards}</div><p>{CLOSING}</p></article>'
    )
    text = main_text(page("Where to stay on the coast path", article), "travel/where-to-stay-coast-path")
    assert_whole(text, [INTRO, CLOSING, *(name for name, _ in CARDS), *(about for _, about in CARDS)])


QUESTIONS = [
    ("Is the path open all year?", "Yes, except on days of storm warnings, when the headland section is closed."),
    ("Can I bring my dog?", "Dogs are welcome, but they must be kept on a lead near the nesting sites in spring."),
    ("Is there a bus back?", "The coastal bus stops at both harbours every half hour until seven in the evening."),
]


def test_an_faq_in_accordion_sections_is_kept():
    faq = "".join(
        f'<details class="accordion-item"><summary>{q}</summary><div class="accordion-body"><p>{a}</p></div></details>'
        for q, a in QUESTIONS
    )
    article = (
        f"<article><h1>Coastal path reopens</h1><p>{INTRO}</p><p>{PARAGRAPHS[0]}</p>"
        f'<h2>Questions and answers</h2><div class="faq">{faq}</div><p>{CLOSING}</p></article>'
    )
    text = main_text(page("Coastal path reopens", article))
    assert_whole(text, [INTRO, PARAGRAPHS[0], CLOSING, *(q for q, _ in QUESTIONS), *(a for _, a in QUESTIONS)])


QUOTED = [
    "We knew the old path could not be saved the morning after the storm. Half the field had gone into the sea, "
    "and the fence posts were hanging over the edge of the cliff.",
    "So we walked the whole coast with the farmers and the rangers, and we chose a line that will still be "
    "there in fifty years, even if that meant a steeper climb.",
]


def test_a_long_blockquote_is_kept():
    quote = "".join(f"<p>{q}</p>" for q in QUOTED)
    article = (
        f"<article><h1>Coastal path reopens</h1><p>{INTRO}</p><p>{PARAGRAPHS[0]}</p>"
        f'<blockquote class="pull-quote">{quote}</blockquote><p>{PARAGRAPHS[1]}</p><p>{CLOSING}</p></article>'
    )
    assert_whole(main_text(page("Coastal path reopens", article)), [INTRO, PARAGRAPHS[0], *QUOTED, PARAGRAPHS[1]])


def test_a_continuation_block_after_the_body_is_kept():
    """The second half of the body in a sibling block of its own (a "read more" continuation)."""
    first = "".join(f"<p>{p}</p>" for p in PARAGRAPHS[:2])
    rest = "".join(f"<p>{p}</p>" for p in PARAGRAPHS[2:])
    article = (
        f'<article><h1>Coastal path reopens</h1><div class="entry-summary"><p>{INTRO}</p>{first}</div>'
        f'<div id="more" class="entry-more">{rest}<p>{CLOSING}</p></div></article>'
    )
    assert_whole(main_text(page("Coastal path reopens", article)), [INTRO, *PARAGRAPHS, CLOSING])


LINKED = ["Map of the new route (PDF)", "Timetable of the coastal bus"]


def test_link_only_lines_between_kept_paragraphs_are_kept():
    """A heading whose whole text is a link, and list items that are links, inside the body."""
    links = "".join(f'<li><a href="{SITE}/files/{n}">{text}</a></li>' for n, text in enumerate(LINKED))
    article = (
        f"<article><h1>Coastal path reopens</h1><p>{INTRO}</p><p>{PARAGRAPHS[0]}</p>"
        f'<h2><a href="{SITE}/walks/new-route">The new route, stage by stage</a></h2>'
        f"<p>{PARAGRAPHS[1]}</p><p>{PARAGRAPHS[2]}</p><p>Before you go, read these:</p><ul>{links}</ul>"
        f"<p>{PARAGRAPHS[3]}</p><p>{CLOSING}</p></article>"
    )
    text = main_text(page("Coastal path reopens", article))
    assert_whole(text, [INTRO, *PARAGRAPHS[:4], CLOSING, "The new route, stage by stage", *LINKED])


COMMENTS = [
    "I walked the new section last weekend and it is lovely, although the steps near the top are very steep "
    "and there is nowhere to sit down on the way up. A bench would be welcome.",
    "Does anyone know whether the bridge is suitable for a pushchair? We would like to do the first half of the "
    "walk with our little one but the photos make it look narrow.",
    "Great news. We stayed at the farm last summer and missed the path, so we will be back this year to walk "
    "it from one harbour to the other and have lunch at the café.",
    "The council should have put in a handrail on the steps. My mother uses a stick and could not manage the "
    "climb at all, which is a shame because the old path was flat.",
    "The bus timetable changed last month: the last one now leaves the far harbour at seven, not eight, so do "
    "not start the walk too late in the afternoon or you will have a long wait.",
]


def test_a_short_post_under_its_title_wins_over_a_longer_comment_thread():
    """The post is two paragraphs under its headline; the reader comments after it hold more than
    twice its prose."""
    thread = "".join(
        f'<li class="comment"><div class="comment-author">Reader {n}</div>'
        f'<div class="comment-date">12 May 2025</div><div class="comment-content"><p>{c}</p></div></li>'
        for n, c in enumerate(COMMENTS, 1)
    )
    article = (
        f'<article class="post"><h1 class="entry-title">Coastal path reopens</h1>'
        f'<div class="entry-content"><p>{INTRO}</p><p>{PARAGRAPHS[0]}</p></div></article>'
        f'<section id="comments"><h2>5 responses</h2><ol class="comment-list">{thread}</ol></section>'
    )
    text = main_text(page("Coastal path reopens", article))
    assert_whole(text, [INTRO, PARAGRAPHS[0]])
    assert not any(comment in text for comment in COMMENTS), text


STANDFIRST = (
    "After a winter of repairs, walkers can once again follow the cliffs from one harbour to the other, on a "
    "new route with a bridge, steps and better views."
)


def test_the_header_of_an_article_is_its_own():
    """The standfirst under the headline, inside the article's ``<header>``, is main text."""
    body = "".join(f"<p>{p}</p>" for p in PARAGRAPHS)
    article = (
        f'<article><header class="article-header"><h1>Coastal path reopens</h1><p class="standfirst">{STANDFIRST}</p>'
        f"</header><p>{INTRO}</p>{body}</article>"
    )
    assert_whole(main_text(page("Coastal path reopens", article)), [STANDFIRST, INTRO, *PARAGRAPHS])


def test_negative_class_words_on_far_ancestors_do_not_mark_the_body():
    """A theme puts ``no-sidebar``, ``tag-…`` and ``widget`` words on the body and the wrappers."""
    body = "".join(f"<p>{p}</p>" for p in PARAGRAPHS)
    article = (
        f'<div class="widget-area-wrap"><div class="layout tag-walks"><article><h1>Coastal path reopens</h1>'
        f'<div class="entry"><p>{INTRO}</p>{body}<p>{CLOSING}</p></div></article></div></div>'
    )
    html = page(
        "Coastal path reopens", article, body_class="no-sidebar tag-walks widget-ready", wrapper_class="no-sidebar"
    )
    assert_whole(main_text(html), [INTRO, *PARAGRAPHS, CLOSING])
