"""The fingerprint and the indexes of near-duplicate articles: same words give the same print in any
process, copies are found and distinct texts are not, the in-memory index stays bounded, and the Redis
index (a real redis-server) is shared, atomic, kept across clients and cleared by its prefix."""

from __future__ import annotations

import logging
import subprocess
import sys
import threading

import pytest
import redis
from duplicate_site import stories
from test_redis import redis_url  # noqa: F401 - the fixture: a redis-server of its own

from scrapy_bodytext import ExtractConfig, extract
from scrapy_bodytext.duplicates import MemoryIndex, fingerprint, make_index, plain_text_of
from scrapy_bodytext.duplicates.redis_index import RedisIndex
from scrapy_bodytext.duplicates.shingles import MAX_CHARS

STORIES = stories()
TEXT = "\n".join(STORIES[0].paragraphs)
OTHER = "\n".join(STORIES[1].paragraphs)


def test_the_exact_print_ignores_case_spacing_and_compatibility_forms():
    assert fingerprint(TEXT).exact == fingerprint("  " + TEXT.upper().replace(" ", "\n  ") + " ").exact
    assert fingerprint("ﬁnal report").exact == fingerprint("final report").exact
    assert fingerprint(TEXT).exact != fingerprint(TEXT + " more").exact


def test_a_story_is_known_by_its_first_paragraphs():
    long_text = " ".join(f"{paragraph}" for story in STORIES for paragraph in story.paragraphs)
    assert len(long_text) > MAX_CHARS + 1000
    head = long_text[:MAX_CHARS]
    assert fingerprint(head + " a different ending of the page").exact == fingerprint(long_text).exact
    assert fingerprint(long_text[500:]).similarity(fingerprint(long_text)) < 1.0


def test_similarity_is_high_for_an_edited_copy_and_low_for_another_story():
    edited = TEXT.replace(STORIES[0].paragraphs[2], "A paragraph written anew for the second edition of the story.")
    assert fingerprint(TEXT).similarity(fingerprint(TEXT)) == 1.0
    assert 0.6 < fingerprint(TEXT).similarity(fingerprint(edited)) < 1.0
    assert fingerprint(TEXT).similarity(fingerprint(OTHER)) < 0.3
    assert fingerprint("").words == 0


def test_the_print_is_the_same_in_another_process():
    """Shingles are hashed without Python's per-process string hash: prints agree across machines."""
    code = (
        "import sys; from scrapy_bodytext.duplicates import fingerprint; "
        "print(fingerprint(sys.stdin.read()).signature.tobytes().hex())"
    )
    done = subprocess.run([sys.executable, "-c", code], input=TEXT, capture_output=True, text=True, check=True)
    assert done.stdout.strip() == fingerprint(TEXT).signature.tobytes().hex()


def test_the_print_is_taken_from_plain_text_whatever_the_output_format():
    page = f"<html><body><article><h1>Title</h1>{''.join(f'<p>{p}</p>' for p in STORIES[0].paragraphs)}</article></body></html>"
    as_text = extract(page.encode(), url="https://example.com/a")
    as_markdown = extract(
        page.encode(), url="https://example.com/a", config=ExtractConfig(output_format="markdown", plain_text=True)
    )
    assert as_markdown.text != as_text.text
    assert fingerprint(plain_text_of(as_markdown)).exact == fingerprint(plain_text_of(as_text)).exact


def test_the_memory_index_names_the_first_copy_and_stores_it_once():
    index = MemoryIndex(0.5)
    assert index.claim("https://a.example/1", fingerprint(TEXT)) is None
    assert index.claim("https://b.example/2", fingerprint(OTHER)) is None
    match = index.claim("https://c.example/copy", fingerprint(TEXT + "\nA closing line added by the copy."))
    assert match is not None and match.url == "https://a.example/1" and 0.9 < match.similarity <= 1.0
    assert index.claim("https://a.example/1", fingerprint(TEXT)).url == "https://a.example/1"  # fetched again
    assert index.claim("https://e.example/empty", fingerprint("")) is None
    assert len(index) == 2


def test_the_memory_index_forgets_the_oldest_past_its_capacity():
    index = MemoryIndex(0.5, capacity=2)
    for number, story in enumerate(STORIES[:3]):
        assert index.claim(f"https://a.example/{number}", fingerprint("\n".join(story.paragraphs))) is None
    assert len(index) == 2 and index.evicted == 1
    assert index.lookup(fingerprint(TEXT)) is None  # the first story was forgotten
    assert index.lookup(fingerprint(OTHER)).url == "https://a.example/1"


@pytest.mark.parametrize("similarity", [0.0, 1.5])
def test_an_index_refuses_a_similarity_outside_its_range(similarity):
    with pytest.raises(ValueError, match="similarity"):
        MemoryIndex(similarity)


@pytest.mark.redis
def test_the_redis_index_is_shared_kept_and_cleared(redis_url):  # noqa: F811 - the fixture
    prefix = "test:shared"
    first = make_index(0.5, redis_url=redis_url, prefix=prefix)
    assert first.claim("https://a.example/1", fingerprint(TEXT)) is None
    first.close()
    second = RedisIndex(redis_url, prefix=prefix, similarity=0.5)  # another client, later: the index is kept
    match = second.claim("https://b.example/copy", fingerprint(TEXT + "\nOne more line."))
    assert match is not None and match.url == "https://a.example/1"
    keys = redis.Redis.from_url(redis_url).keys(f"{prefix}:*")
    assert {key.decode().split(":")[2] for key in keys} == {"url", "exact", "signature", "band", "config"}
    assert second.clear() == len(keys)
    assert second.claim("https://b.example/copy", fingerprint(TEXT)) is None
    second.clear()


@pytest.mark.redis
def test_the_redis_index_refuses_keys_written_with_other_bands(redis_url):  # noqa: F811 - the fixture
    RedisIndex(redis_url, prefix="test:bands", similarity=0.5).claim("https://a.example/1", fingerprint(TEXT))
    with pytest.raises(ValueError, match="clear them or choose another prefix"):
        RedisIndex(redis_url, prefix="test:bands", similarity=0.9)
    RedisIndex(redis_url, prefix="test:bands", similarity=0.5).clear()


@pytest.mark.redis
def test_keys_of_other_bands_found_after_a_late_start_are_said_once_and_turn_the_index_off(tmp_path, caplog):
    """An index opened while Redis is frozen checks the keys' configuration at its first claim that
    reaches Redis: keys of other bands are one ERROR line, and no later claim calls Redis."""
    from test_redis_faults import started_redis

    from scrapy_bodytext.stores import RedisLink, StoreUnavailable

    with started_redis(tmp_path / "redis") as server:
        RedisIndex(server.url, prefix="test:late", similarity=0.5).claim("https://a.example/1", fingerprint(TEXT))
        link = RedisLink(server.url, setting="BODYTEXT_DUPLICATE_REDIS_URL", retry_after=0)
        server.freeze()
        try:
            late = RedisIndex(link, prefix="test:late", similarity=0.9)  # the check times out: not known yet
        finally:
            server.thaw()
        assert late.guard.counts["failures"] == 1
        caplog.clear()  # the timeout's WARNING said; what follows is the late check's
        caplog.set_level(logging.DEBUG)
        for number in range(5):
            with pytest.raises(StoreUnavailable):
                late.claim(f"https://b.example/{number}", fingerprint(OTHER))
        late.close()
    errors = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert (
        len(errors) == 1
        and "is off for the rest of the run" in errors[0]
        and "were written with" in errors[0]
        and "clear them or choose another prefix" in errors[0]
    )
    assert late.guard.counts["mismatched"] == 1 and late.guard.counts["skipped"] == 4


@pytest.mark.redis
def test_clients_racing_on_one_story_store_it_once(redis_url):  # noqa: F811 - the fixture
    """Eight clients claim copies of the same six stories at once: each story is stored by one."""
    prints = [fingerprint("\n".join(story.paragraphs)) for story in STORIES]
    stored: list[str] = []
    lock = threading.Lock()
    start = threading.Barrier(8)

    def client(number: int) -> None:
        index = RedisIndex(redis_url, prefix="test:race", similarity=0.5)
        start.wait()
        for story, print_ in enumerate(prints):
            if index.claim(f"https://copy{number}.example/{story}", print_) is None:
                with lock:
                    stored.append(f"{story}")
        index.close()

    threads = [threading.Thread(target=client, args=(number,)) for number in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(stored) == [str(story) for story in range(len(prints))]
    RedisIndex(redis_url, prefix="test:race", similarity=0.5).clear()
