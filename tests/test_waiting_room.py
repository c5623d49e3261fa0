"""The waiting room (``sites.waiting``): the one policy the crawl, the fitting replay and
``extract(..., memory=...)`` decide a site's pages by. Bounded work: settling is a loop, waiting pages
are judged again only when a page taught their site something that may settle them."""

from __future__ import annotations

import sys

from test_sites import LEANING, result

from scrapy_bodytext.result import ExtractionResult
from scrapy_bodytext.sites import SiteMemory
from scrapy_bodytext.sites.waiting import BY_COUNT, ON_CLOSE, SETTLED_WHILE_WAITING, WaitingRoom


class CountingMemory(SiteMemory):
    """The real memory, counting how often a page is judged."""

    judged = 0

    def judge(self, url: str, result: ExtractionResult, **options) -> object:
        self.judged += 1
        return super().judge(url, result, **options)


def page(probability: float, number: object) -> ExtractionResult:
    """A page of its own text (pages sharing one text would make it the site's furniture)."""
    return result(probability, text=f"Page {number}: " + "what happened in the town, and who said what of it. " * 4)


def tally(counts: dict[str, int]):
    def count(name: str, n: int = 1) -> None:
        counts[name] = counts.get(name, 0) + n

    return count


def test_more_waiting_pages_of_one_site_than_the_recursion_limit_all_settle():
    """1,500 uncertain pages of one site wait (more than Python's recursion limit of calls deep); the
    confident posts that come after teach the site until it settles them: each gets its verdict."""
    waiting = 1500
    assert waiting > sys.getrecursionlimit()
    counts: dict[str, int] = {}
    failures: list = []
    room = WaitingRoom(
        SiteMemory(weights=LEANING), capacity=2 * waiting, count=tally(counts), failed=lambda *a: failures.append(a)
    )
    decided = []
    for number in range(waiting):
        decided += room.arrive(number, f"https://a.example/news/unsure-{number}/", page(0.6, number))
    assert not decided and len(room) == waiting
    posts = LEANING.min_evidence + 1  # a post never counts towards itself: one more settles them all
    for number in range(posts):
        decided += room.arrive(f"post {number}", f"https://a.example/news/post-{number}/", page(0.97, number))
    assert not failures
    assert len(room) == 0
    assert {outcome.key for outcome in decided} == {*range(waiting), *(f"post {n}" for n in range(posts))}
    assert counts[SETTLED_WHILE_WAITING] == waiting + posts - 1  # the last post is settled when it comes
    assert all(outcome.verdict is not None and outcome.verdict.settled for outcome in decided)


def test_waiting_pages_are_judged_again_only_when_a_page_taught_their_site():
    memory = CountingMemory(weights=LEANING)
    room = WaitingRoom(memory, capacity=100)
    for number in range(10):
        room.arrive(number, f"https://a.example/news/unsure-{number}/", page(0.6, number))
    assert memory.judged == 10  # an unsure page teaches nothing: no waiting page is judged again
    for number in range(LEANING.min_evidence - 2):
        room.arrive(f"post {number}", f"https://a.example/news/post-{number}/", page(0.97, number))
    # a post teaches, but the site cannot settle a page before min_evidence confident verdicts
    assert memory.judged == 10 + LEANING.min_evidence - 2
    assert len(room) == 10 + LEANING.min_evidence - 2


def test_the_oldest_goes_when_more_wait_and_the_rest_at_the_close():
    counts: dict[str, int] = {}
    room = WaitingRoom(SiteMemory(weights=LEANING), capacity=2, count=tally(counts))
    first = room.arrive("a", "https://a.example/x/one/", result(0.6), now=1.0)
    second = room.arrive("b", "https://a.example/x/two/", result(0.6), now=2.0)
    third = room.arrive("c", "https://a.example/x/three/", result(0.6), now=3.0)
    assert first == second == [] and [outcome.key for outcome in third] == ["a"] and third[0].how == BY_COUNT
    assert room.oldest_since() == 2.0
    assert [outcome.key for outcome in room.release_since(2.5)] == ["b"]
    closing = room.release_all()
    assert [outcome.key for outcome in closing] == ["c"] and closing[0].how == ON_CLOSE
    assert counts["decided_with_little_evidence"] == 3


def test_no_waiting_is_what_extract_with_memory_does():
    """Capacity 0: each page decided when it comes, as ``SiteMemory.decide`` decides it."""
    pages = [(f"https://a.example/news/post-{n}/", page(0.97 if n % 3 else 0.6, n)) for n in range(40)]
    room = WaitingRoom(SiteMemory(weights=LEANING), capacity=0)
    alone = SiteMemory(weights=LEANING)
    for url, found in pages:
        [outcome] = room.arrive(url, url, found)
        verdict = alone.decide(url, found)
        assert outcome.result.article_probability == verdict.probability
        assert outcome.result.is_article == verdict.is_article


def test_a_failing_memory_leaves_each_page_its_own_verdict_with_one_failure_each():
    class Broken(SiteMemory):
        def judge(self, url, result, **options):
            raise RuntimeError("a broken store")

    failures: list = []
    room = WaitingRoom(Broken(weights=LEANING), failed=lambda *found: failures.append(found))
    [outcome] = room.arrive("a", "https://a.example/x/", page(0.6, "a"))
    assert outcome.verdict is None and outcome.result.article_probability == 0.6
    assert outcome.result.debug["site_evidence"]["decided_by"] == "page"
    assert len(failures) == 1 and "own verdict" in failures[0][0]


# ------------------------------------------------------------------------------------ evidence that cannot feed on itself


def test_a_page_whose_text_is_the_sites_furniture_is_no_article_and_teaches_nothing():
    """The memory strips lines that recur on the site's articles; a page whose whole text is those
    lines (a box every list page shows as its selection) is never an article, whatever its own
    probability, and teaches its site nothing."""
    box = [
        f"Line {n} of the box every page of the site shows, long enough to count as a line of text." for n in range(3)
    ]
    memory = SiteMemory(weights=LEANING)
    for number in range(LEANING.boilerplate_count + 2):
        text = "\n".join([f"The post number {number} tells what happened in the town that week. " * 3, *box])
        memory.decide(f"https://a.example/news/post-{number}/", result(0.97, text=text))
    only_box = result(0.99, template="list", text="\n".join(box))
    verdict = memory.judge("https://a.example/tag/harbour/", only_box, threshold=0.5)
    assert verdict.capped == "only the site's furniture" and verdict.settled
    assert not verdict.is_article and verdict.probability < 0.5
    assert not memory.learn("https://a.example/tag/harbour/", only_box, verdict)
    [outcome] = WaitingRoom(memory).arrive("tag", "https://a.example/tag/harbour/", only_box)
    assert not outcome.result.is_article and outcome.result.text == only_box.text  # capped: its text kept whole


def test_a_confident_page_an_established_site_overturns_teaches_nothing():
    memory = SiteMemory(weights=LEANING)
    for number in range(LEANING.min_evidence + 10):
        memory.decide(f"https://a.example/news/post-{number}/", page(0.97, number))
    listing = result(0.95, template="list")
    verdict = memory.judge("https://a.example/tag/harbour/", listing)
    assert verdict.probability < LEANING.agreement  # none of the site's articles has its shape
    assert not memory.learn("https://a.example/tag/harbour/", listing, verdict)
    young = SiteMemory(weights=LEANING)  # a young site: the confident page teaches
    for number in range(3):
        young.decide(f"https://a.example/news/post-{number}/", page(0.97, number))
    assert young.learn(
        "https://a.example/tag/harbour/", listing, young.judge("https://a.example/tag/harbour/", listing)
    )
