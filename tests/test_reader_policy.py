"""What main text is (docs/methods.md#what-main-text-is): captions and credits are never main text
and go to ``captions``, the recall guard never adds a caption or a byline, the lead is kept on its
own first-pass evidence. Scores are set by hand where the rule, not the fitted model, is tested."""

from __future__ import annotations

from scrapy_bodytext import extract
from scrapy_bodytext.api import load_document
from scrapy_bodytext.config import ExtractConfig
from scrapy_bodytext.extractors.bodytext import Guard, select, units

BODY = "".join(
    f"<p>Paragraph {n} tells how the fishermen, the council and the builders worked through the nights "
    "to get the harbour walls back up before the winter season began.</p>"
    for n in range(6)
)
TITLE = "Harbour reopens after the storm"


def page(inside: str) -> str:
    return f"<html><head><title>{TITLE}</title></head><body><nav><a href=/>Home</a></nav><article>{inside}</article></body></html>"


def paragraphs_of(html: str) -> tuple[units.Paragraphs, list[str]]:
    doc = load_document(html, ExtractConfig(), url="https://news.example/2026/harbour")
    paras = units.paragraphs(doc)
    texts = [" ".join("".join(doc.texts[s] for s in range(a, b)).split()) for a, b in zip(paras.starts, paras.ends)]
    return paras, texts


def index_of(texts: list[str], start: str) -> int:
    return next(i for i, text in enumerate(texts) if text.startswith(start))


def test_a_figcaption_is_a_caption_not_main_text_and_goes_to_captions():
    html = page(
        f"<h1>{TITLE}</h1>{BODY[:400]}<figure><img src=wall.jpg><figcaption>The rebuilt harbour wall on Monday "
        f"morning, seen from the pier, after three weeks of work.</figcaption></figure>{BODY[400:]}"
    )
    result = extract(html, url="https://news.example/2026/harbour")
    assert "rebuilt harbour wall" not in result.text and "Paragraph 5" in result.text
    assert (
        result.captions == "The rebuilt harbour wall on Monday morning, seen from the pier, after three weeks of work."
    )


def test_text_a_figure_holds_in_a_table_quote_or_code_block_is_not_a_caption():
    paras, texts = paragraphs_of(
        page(
            f"<h1>{TITLE}</h1>{BODY}<figure><table><tr><td>Boats sunk</td><td>4</td></tr></table></figure>"
            "<figure><blockquote><p>We worked every night.</p></blockquote></figure>"
            "<figure><pre>walls = rebuild(harbour)</pre><figcaption>The plan</figcaption></figure>"
        )
    )
    assert {texts[i] for i in paras.captions} == {"The plan"}


def test_caption_and_credit_class_words_and_credit_lines_mark_captions():
    paras, texts = paragraphs_of(
        page(
            f"<h1>{TITLE}</h1>{BODY}<div class='wp-caption'><img src=a.jpg><p>Boats in the harbour.</p></div>"
            "<span class='image-credit'>Jane Roe</span><p>Photo: John Doe</p>"
        )
    )
    assert {texts[i] for i in paras.captions} == {"Boats in the harbour.", "Jane Roe", "Photo: John Doe"}


def test_the_recall_guard_adds_no_caption_or_byline_but_adds_other_lines_of_the_core():
    paras, texts = paragraphs_of(
        page(
            f"<h1>{TITLE}</h1><div class='byline'>Jane Smith, harbour reporter</div>{BODY[:300]}"
            "<h2>What comes next</h2><span class='photo-credit'>Agency pictures</span>"
            f"<p>By Jane Smith and John Doe</p>{BODY[300:]}"
        )
    )
    body = {i for i, text in enumerate(texts) if text.startswith("Paragraph")}
    scores = [0.9 if i in body else 0.3 for i in range(len(texts))]  # every other line between the guard's cuts
    keep = {texts[i] for i in select(paras, scores, 0.5, 0.5, Guard(share=0.9, cut=0.2))}
    assert "What comes next" in keep
    assert not keep & {"Jane Smith, harbour reporter", "Agency pictures", "By Jane Smith and John Doe"}


def test_the_lead_is_kept_on_its_own_evidence_where_the_second_pass_vetoes_it():
    paras, texts = paragraphs_of(
        page(
            f"<header><h1>{TITLE}</h1><p>The town's harbour opened again on Monday, three weeks after the storm "
            "that wrecked its walls.</p><p class='byline'>By Jane Smith</p></header>"
            f"<figure><img src=a.jpg><figcaption>The harbour on Monday.</figcaption></figure>{BODY}"
        )
    )
    lead, byline, caption = (index_of(texts, s) for s in ("The town's", "By Jane", "The harbour on"))
    body = [i for i, text in enumerate(texts) if text.startswith("Paragraph")]
    second = [0.9 if i in body else 0.1 for i in range(len(texts))]
    first = [0.9 if i in body or i in (lead, byline, caption) else 0.1 for i in range(len(texts))]
    assert paras.anchor == index_of(texts, TITLE)
    assert lead not in select(paras, second, 0.5, 0.5)
    keep = select(paras, second, 0.5, 0.5, None, first)
    assert lead in keep and byline not in keep and caption not in keep and paras.anchor not in keep


def test_a_lead_named_so_outside_the_anchor_region_is_kept_and_nothing_before_the_headline():
    paras, texts = paragraphs_of(
        page(
            "<p>A line above the headline that the first pass likes well enough.</p>"
            f"<div><h1>{TITLE}</h1></div><div class='standfirst'><p>Three weeks after the storm, the harbour "
            "is open again.</p></div><p>We keep this site going thanks to the support of our readers.</p>"
            f"<div>{BODY}</div>"
        )
    )
    above, lead, box = (index_of(texts, s) for s in ("A line above", "Three weeks", "We keep"))
    body = [i for i, text in enumerate(texts) if text.startswith("Paragraph")]
    second = [0.9 if i in body else 0.1 for i in range(len(texts))]
    first = [0.9 if i in (*body, above, lead, box) else 0.1 for i in range(len(texts))]
    keep = select(paras, second, 0.5, 0.5, None, first)
    assert lead in keep and above not in keep and box not in keep  # one lead: the named one


def test_the_recall_guard_adds_no_line_of_an_in_body_widget():
    paras, texts = paragraphs_of(
        page(
            f"<h1>{TITLE}</h1>{BODY[:300]}<h2>What comes next</h2>"
            "<form><p>Get the harbour news every morning.</p><button>Sign up now</button></form>"
            "<aside><p>More from the coast this week.</p></aside>"
            "<p>Read more: <a href=/2026/storm>The storm that wrecked the harbour walls in one night</a></p>"
            f"<p>The council said <a href=/council>in a statement</a> that the work was done.</p>{BODY[300:]}"
            "<footer><p>Filed under harbours and storms.</p></footer>"
        )
    )
    body = {i for i, text in enumerate(texts) if text.startswith("Paragraph")}
    scores = [0.9 if i in body else 0.3 for i in range(len(texts))]
    keep = {texts[i] for i in select(paras, scores, 0.5, 0.5, Guard(share=0.9, cut=0.2))}
    assert {"What comes next", "The council said in a statement that the work was done."} <= keep
    assert not keep & {
        TITLE,  # the headline is the result's title
        "Get the harbour news every morning.",
        "Sign up now",
        "More from the coast this week.",
        "Read more: The storm that wrecked the harbour walls in one night",
        "Filed under harbours and storms.",
    }


def test_a_wrapper_named_after_the_author_makes_no_byline_of_the_post_it_holds():
    paras, texts = paragraphs_of(
        "<html><head><title>Harbour</title></head><body><nav><a href=/>Home</a></nav>"
        f"<article class='post type-post author-jane'><h1>{TITLE}</h1><div class='entry-content'>{BODY}</div>"
        "</article></body></html>"
    )
    assert not paras.bylines
    body = {i for i, text in enumerate(texts) if text.startswith("Paragraph")}
    scores = [0.9 if i in body and i % 2 else 0.3 for i in range(len(texts))]  # half the post under the cut
    keep = set(select(paras, scores, 0.5, 0.5, Guard(share=0.9, cut=0.2)))
    assert body <= keep  # the recall guard adds the post's own paragraphs back


def test_a_byline_is_read_off_its_own_element_its_own_line_or_an_author_box():
    paras, texts = paragraphs_of(
        page(
            f"<h1>{TITLE}</h1><div class='byline'>Jane Smith, harbour reporter</div>"
            "<p><span class='author-name'>John Doe</span> in Portsmouth</p><p>By Ann Lee</p>"
            f"<div class='author-jane-smith'>{BODY[:300]}</div>{BODY[300:]}"
            "<div class='about-the-author'><p>Jane Smith writes about the coast for the paper.</p></div>"
        )
    )
    assert {texts[i] for i in paras.bylines} == {
        "Jane Smith, harbour reporter",
        "John Doe in Portsmouth",
        "By Ann Lee",
        "Jane Smith writes about the coast for the paper.",
    }


def test_a_caption_is_text_attached_to_a_picture_not_a_paragraph_classed_so():
    paras, texts = paragraphs_of(
        page(
            f"<h1>{TITLE}</h1><p class='wp-caption-text'>The town's harbour opened again on Monday, three "
            "weeks after the storm that wrecked its walls.</p>"
            f"{BODY[:300]}<div class='wp-caption'><img src=a.jpg><p class='wp-caption-text'>The new wall.</p></div>"
            "<div class='photo'><img src=b.jpg></div><div class='caption'>Boats back at the pier.</div>"
            f"{BODY[300:]}<figure><img src=c.jpg><figcaption>The pier at dawn.</figcaption></figure>"
        )
    )
    assert {texts[i] for i in paras.captions} == {"The new wall.", "Boats back at the pier.", "The pier at dawn."}


PHOTO_TEXT = (
    "The harbour at dawn on the first morning after the storm: the fishing boats lie where the waves left "
    "them, and the old wall is gone from the pier to the lighthouse. Volunteers came from every village "
    "on the coast to clear the quay before the council's engineers arrived."
)


def test_a_page_whose_prose_is_all_in_captions_keeps_it_as_main_text():
    html = page(
        f"<h1>{TITLE}</h1><div class='photo'><img src=a.jpg><div class='caption'><p>{PHOTO_TEXT}</p>"
        f"<p>{PHOTO_TEXT.replace('dawn', 'dusk')}</p></div></div>"
    )
    paras, texts = paragraphs_of(html)
    assert index_of(texts, "The harbour at dawn") in paras.captions  # attached to its picture
    result = extract(html, url="https://news.example/2026/harbour")
    assert "The harbour at dawn" in result.text and "The harbour at dusk" in result.text
    assert result.captions == ""


def test_a_blog_whose_body_is_classed_as_captions_keeps_its_body():
    body = BODY.replace("<p>", "<p class='caption'>")
    html = page(f"<h1>{TITLE}</h1><img src=a.jpg><div class='entry'>{body}</div>")
    result = extract(html, url="https://news.example/2026/harbour")
    assert all(f"Paragraph {n} " in result.text for n in range(6))


def test_short_captions_beside_the_article_stay_captions():
    paras, texts = paragraphs_of(
        page(
            f"<h1>{TITLE}</h1>{BODY}<div class='wp-caption'><img src=a.jpg><p class='wp-caption-text'>The wall.</p></div>"
        )
    )
    body = [i for i, text in enumerate(texts) if text.startswith("Paragraph")]
    caption = index_of(texts, "The wall.")
    scores = [0.9 if i in body or i == caption else 0.1 for i in range(len(texts))]
    keep = select(paras, scores, 0.5, 0.5)
    assert caption not in keep and set(body) <= set(keep)
