"""The peers the harness and ``evaluate`` compare with give the text of a plain article page: a peer
that silently returns nothing would make every comparison a win."""

from __future__ import annotations

import importlib.util

import pytest

from scrapy_bodytext.evaluation.peers import PEER_MODULES, PEERS, run_peer

SENTENCE = "The harbour board voted on Tuesday to keep the old crane as a museum piece for the town. "
PAGE = (
    "<html><head><title>Crane kept</title></head><body><nav><a href='/'>Home</a> <a href='/news'>News</a></nav>"
    f"<article><h1>Crane kept</h1><p>{SENTENCE * 6}</p><p>{SENTENCE * 5}</p></article>"
    "<footer>Contact us</footer></body></html>"
).encode()


@pytest.mark.parametrize("name", sorted(PEERS))
def test_each_installed_peer_reads_an_article(name):
    if importlib.util.find_spec(PEER_MODULES[name]) is None:
        pytest.skip(f"{name} is not installed (pip install 'scrapy-bodytext[peers]')")
    text = run_peer(name, PAGE, "utf-8", "https://news.example/2025/crane.html")
    assert SENTENCE.strip() in text
    assert "Contact us" not in text
