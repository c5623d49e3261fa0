"""Site memory's evidence beyond URL shapes and templates: date-anchored shapes, a combination that
never works against itself (more confident articles of a page's shape never lower it), and
site-relative page-level signals (a page showing what its site's confirmed articles lack, or lacking
what nearly all of them show), on hand-made results and on the generated blog's pages."""

from __future__ import annotations

import itertools
import json
import random

import pytest
from blog_site import blog

from scrapy_bodytext import extract
from scrapy_bodytext.page.signature import READ_MORE, SIGNALS
from scrapy_bodytext.result import ExtractionResult
from scrapy_bodytext.sites import SiteMemory, Weights, url_shape
from scrapy_bodytext.sites.shapes import dated_shape
from scrapy_bodytext.sites.verdict import FEATURES, SIGNAL_ARTICLES, SIGNS, load_weights

POST_TEXT = "A paragraph of the post, long enough to be an article's text: it says what happened and where. " * 3


#: numbers each page's text apart: pages sharing one text would make it their site's furniture
PAGE_NUMBERS = itertools.count()


def result(probability: float, template: str = "post", signals: tuple[str, ...] = ()) -> ExtractionResult:
    text = f"{POST_TEXT}(page {next(PAGE_NUMBERS)})"
    return ExtractionResult(
        text, probability, probability >= 0.5, "bodytext", template=template, signals=tuple(signals)
    )


#: a combination that weighs the signals only (besides the page): what the tests of signals read
SIGNALLED = Weights(
    bias=0.0,
    weights={"page_logit": 1.0, "signal_lacking": -1.0, "signal_missing": -1.0},
    threshold=0.5,
    min_evidence=1,
)


# ------------------------------------------------------------------------------ date-anchored shapes
@pytest.mark.parametrize(
    ("url", "dated"),
    [
        ("https://a.example/linux/2013/04/23/a-post.html", "/{year}/{month}/{day}/{slug}.html"),
        ("https://a.example/travel/europe/2012/06/25/a-post.html", "/{year}/{month}/{day}/{slug}.html"),
        ("https://a.example/2012/06/a-post/", "/{year}/{month}/{slug}/"),
        ("https://a.example/news/2012/", ""),  # nothing after the year: no post shape
        ("https://a.example/tag/privacy/", ""),
    ],
)
def test_the_date_anchored_shape_starts_at_the_date_whatever_comes_before(url: str, dated: str) -> None:
    assert dated_shape(url_shape(url)) == dated


def test_posts_under_categories_of_any_depth_meet_on_their_date_anchored_shape() -> None:
    memory = SiteMemory(weights=Weights(weights={"page_logit": 1.0, "dated_share": 1.0}, threshold=0.5, min_evidence=1))
    for number in range(12):
        category = ("linux", "travel/europe", "food")[number % 3]
        memory.decide(f"https://a.example/{category}/2013/04/{number + 1:02d}/post-number-{number}.html", result(0.97))
    verdict = memory.judge("https://a.example/music/jazz/2014/05/06/a-new-post.html", result(0.4))
    assert verdict.evidence["counts"]["shape"] == [0, 0]  # no post of its exact shape
    assert verdict.evidence["counts"]["dated"] == [12, 0]
    assert verdict.is_article and verdict.probability > 0.85


# ------------------------------------------------------------------------------ monotone combination
PAGE_URL = "https://a.example/2024/05/the-page/"


def peers_added(weights: Weights, probability: float, steps: int = 40) -> list[float]:
    """The probability of one page as its peers (confident articles of its shape and template) are
    learned one by one, after a site of 30 confident articles of another shape and template."""
    memory = SiteMemory(weights=weights)
    for number in range(30):
        memory.decide(f"https://a.example/notes/{number}/", result(0.97, template="note"))
    found = []
    page = result(probability, template="post")
    for number in range(steps):
        found.append(memory.judge(PAGE_URL, page).probability)
        memory.decide(f"https://a.example/2024/05/post-{number}/", result(0.97, template="post"))
    return found


def shares_moved(weights: Weights, probability: float, template: str, total: int = 40) -> list[float]:
    """The probability of one page when ``k`` of its site's ``total`` confident articles have its
    shape (of template ``template``) and the others another shape and template, for k = 0..total."""
    found = []
    page = result(probability, template="post")
    for mine in range(total + 1):
        memory = SiteMemory(weights=weights)
        for number in range(total):
            if number < mine:
                memory.decide(f"https://a.example/2024/05/post-{number}/", result(0.97, template=template))
            else:
                memory.decide(f"https://a.example/notes/{number}/", result(0.97, template="note"))
        found.append(memory.judge(PAGE_URL, page).probability)
    return found


def non_decreasing(found: list[float]) -> bool:
    return all(later >= earlier - 1e-12 for earlier, later in itertools.pairwise(found))


@pytest.mark.parametrize("probability", [0.02, 0.3, 0.6, 0.95])
def test_more_confident_articles_of_a_pages_shape_never_lower_it_with_the_shipped_weights(probability: float) -> None:
    weights = load_weights()
    assert non_decreasing(peers_added(weights, probability))
    for template in ("post", "note"):  # of its template too, or of its shape alone
        assert non_decreasing(shares_moved(weights, probability, template))


@pytest.mark.parametrize("seed", range(5))
def test_any_weights_of_the_allowed_signs_are_monotone_in_a_pages_peers(seed: int) -> None:
    """Monotone by construction, not by the fit's luck: weights drawn at random, each of the sign
    ``SIGNS`` allows, never lower a page as articles of its shape come."""
    rng = random.Random(seed)
    drawn = {name: (rng.uniform(-3, 3) if SIGNS[name] == 0 else SIGNS[name] * rng.uniform(0, 3)) for name in FEATURES}
    weights = Weights(bias=rng.uniform(-3, 3), weights=drawn, threshold=rng.uniform(0.01, 0.9))
    probability = rng.uniform(0.01, 0.99)
    assert non_decreasing(peers_added(weights, probability, steps=25))
    assert non_decreasing(shares_moved(weights, probability, rng.choice(["post", "note"]), total=25))


def test_many_articles_none_of_the_pages_shape_or_template_lower_it() -> None:
    weights = load_weights()
    memory = SiteMemory(weights=weights)
    for number in range(40):
        memory.decide(f"https://a.example/2024/05/post-{number}/", result(0.97))
    alone = SiteMemory(weights=weights).judge("https://a.example/topics/privacy/", result(0.8, template="list"))
    judged = memory.judge("https://a.example/topics/privacy/", result(0.8, template="list"))
    assert judged.probability < alone.probability


def test_weights_that_work_against_their_evidence_are_refused() -> None:
    data = load_weights().to_json()
    data["weights"] = {**data["weights"], "shape_articles": -0.5}
    with pytest.raises(ValueError, match="wrong sign.*shape_articles"):
        Weights.from_json(json.loads(json.dumps(data)))


# ------------------------------------------------------------------------------ page-level signals
PAGES, KINDS = blog(60)


def extracted(path: str) -> ExtractionResult:
    return extract(PAGES[path][0], url="https://blog.example" + path)


def test_the_blogs_excerpt_listings_show_read_more_links_its_posts_do_not() -> None:
    assert "continue reading" in READ_MORE
    posts = [path for path, kind in KINDS.items() if kind == "article"][:10]
    excerpts = [path for path in KINDS if path.startswith("/tag/") and "Continue reading" in PAGES[path][0].decode()][
        :5
    ]
    assert len(excerpts) == 5
    for path in posts:
        assert not {"read_more", "times"} & set(extracted(path).signals), path
    for path in excerpts:
        assert "read_more" in extracted(path).signals, path


def taught(memory: SiteMemory, count: int, signals: tuple[str, ...]) -> None:
    for number in range(count):
        memory.decide(f"https://a.example/2024/05/post-{number}/", result(0.97, signals=signals))


def test_a_listing_that_shows_a_signal_its_sites_posts_lack_is_pushed_down() -> None:
    """The blog's posts show no "read more" link; a page of excerpts that shows several is lowered,
    once the site has enough confident articles to tell, and says why."""
    posts = [path for path, kind in KINDS.items() if kind == "article"]
    listing_path = next(
        path for path in KINDS if path.startswith("/tag/") and "Continue reading" in PAGES[path][0].decode()
    )
    memory = SiteMemory(weights=SIGNALLED)
    for path in posts[: SIGNAL_ARTICLES - 1]:
        memory.decide("https://blog.example" + path, extracted(path))
    listing = extracted(listing_path)
    listing = ExtractionResult(listing.text, 0.8, True, "bodytext", template=listing.template, signals=listing.signals)
    url = "https://blog.example" + listing_path
    assert memory.judge(url, listing).probability == pytest.approx(0.8)  # too few articles to tell
    memory.decide("https://blog.example" + posts[SIGNAL_ARTICLES], extracted(posts[SIGNAL_ARTICLES]))
    lowered = memory.judge(url, listing)
    assert lowered.probability < 0.5 and not lowered.is_article
    assert "it shows what the site's articles lack: read_more" in lowered.evidence["why"]
    # a post of the same site is not lowered: it shows nothing its site's articles lack
    post = extracted(posts[-1])
    assert memory.judge("https://blog.example" + posts[-1], post).probability >= post.article_probability - 1e-9


def test_a_page_lacking_a_signal_nearly_all_its_sites_posts_show_is_pushed_down() -> None:
    """The reverse: a site whose posts all show several ``<time>`` elements (dated comments, say) and
    whose listings do not."""
    memory = SiteMemory(weights=SIGNALLED)
    taught(memory, 20, ("times",))
    listing = memory.judge("https://a.example/topics/privacy/", result(0.8, template="post"))
    assert listing.probability < 0.5
    assert "it lacks 1 signals nearly all of the site's articles show" in listing.evidence["why"]
    post = memory.judge("https://a.example/2024/06/a-new-post/", result(0.8, signals=("times",)))
    assert post.probability == pytest.approx(0.8)


def test_a_signal_the_sites_posts_show_too_is_no_evidence() -> None:
    memory = SiteMemory(weights=SIGNALLED)
    taught(memory, 20, ("read_more",))  # the theme puts "read more" links under every post
    page = memory.judge("https://a.example/2024/06/a-new-post/", result(0.8, signals=("read_more",)))
    assert page.probability == pytest.approx(0.8)


def test_a_page_learned_before_takes_its_own_signals_back_out() -> None:
    memory = SiteMemory(weights=SIGNALLED)
    taught(memory, 12, ())
    url, page = "https://a.example/2024/06/odd-post/", result(0.97, signals=("heading_links",))
    first = memory.decide(url, page)
    again = memory.decide(url, page)
    assert again.evidence["counts"]["signals"] == first.evidence["counts"]["signals"]
    assert again.evidence["counts"]["signals"]["heading_links"] == 0
    assert set(first.evidence["counts"]["signals"]) == set(SIGNALS)
