"""The default method's features are built and read by name: a value lands under its own name, and a
model reads its columns in its own order whatever the order the code builds them in."""

from __future__ import annotations

import json

import numpy as np
import pytest

from scrapy_bodytext.api import load_document
from scrapy_bodytext.config import ExtractConfig
from scrapy_bodytext.extractors import bodytext
from scrapy_bodytext.extractors.bodytext import context, model, page, units
from scrapy_bodytext.extractors.bodytext.table import ModelError, Table

PROSE = (
    "The committee met on Tuesday to discuss the budget, and the members agreed that the library "
    "should stay open in the evenings for another year."
)
PAGE = f"""<html lang="en"><head><title>Budget</title></head><body>
<nav><p>Home page of the town council here</p></nav>
<main><article>
<h2>What the council decided this week</h2>
<p>{PROSE}</p>
<ul><li>One item of a list that runs long enough to count as a line of its own text.</li></ul>
<table><tr><td>A table cell with 12 or 13 words in it to be kept as a paragraph</td></tr></table>
<blockquote>A quotation from the mayor, who said that the decision was a good one for all.</blockquote>
<form><p>Write to the council with your view on the plan today</p></form>
</article></main>
</body></html>"""


def paragraph_features(html: str) -> dict[str, dict[str, float]]:
    """Each candidate paragraph's first words -> its features by name."""
    doc = load_document(html, ExtractConfig())
    paras = units.paragraphs(doc)
    texts = {i: "".join(doc.texts[paras.starts[i] : paras.ends[i]]).strip() for i in paras.candidates}
    return {
        texts[i][:12]: {name: float(paras.rows.column(name)[k]) for name in units.FEATURES}
        for k, i in enumerate(paras.candidates)
    }


def test_every_paragraph_value_lands_under_its_own_name():
    found = paragraph_features(PAGE)
    # one paragraph per structure, so that any two of these features swapped changes a value below
    expected = {
        "Home page of": {"in_chrome": 1, "in_article": 0, "in_main": 0},
        "What the cou": {"heading": 1, "in_article": 1, "in_main": 1, "in_chrome": 0},
        "The committe": {"heading": 0, "ends_with_punct": 1, "in_list": 0, "in_table": 0, "in_quote": 0},
        "One item of ": {"in_list": 1, "in_table": 0, "in_quote": 0, "in_form": 0, "heading": 0},
        "A table cell": {"in_table": 1, "in_list": 0, "in_quote": 0, "ends_with_punct": 0},
        "A quotation ": {"in_quote": 1, "in_list": 0, "in_table": 0, "in_form": 0},
        "Write to the": {"in_form": 1, "in_quote": 0, "in_list": 0, "ends_with_punct": 0},
    }
    assert set(expected) <= set(found)
    for line, values in expected.items():
        assert {name: found[line][name] for name in values} == values, line
    prose = found["The committe"]
    assert prose["log_chars"] == pytest.approx(np.log1p(len(PROSE)))
    assert prose["link_density"] == 0.0 and prose["short"] == 0.0 and prose["no_language"] == 0.0
    assert 0.2 < prose["stop_density"] < 0.8
    assert prose["log_sentences"] == pytest.approx(np.log1p(1))
    assert found["Home page of"]["position"] < prose["position"] < found["Write to the"]["position"]
    cell = found["A table cell"]
    assert prose["digit_share"] == 0.0 < prose["upper_share"] and cell["digit_share"] > cell["upper_share"] > 0.0


def test_the_page_rows_name_every_feature_of_the_model():
    doc = load_document(PAGE, ExtractConfig())
    paras = units.paragraphs(doc)
    assert paras.rows.names == units.FEATURES
    assert paras.rows.values.shape == (len(paras.candidates), len(units.FEATURES))
    first = [0.5] * len(paras.starts)
    assert context.context_rows(paras, first).names == context.FEATURES
    row = page.article_row(paras, page.page_evidence(doc, paras), paras.candidates, first)
    assert tuple(row) == page.FEATURES
    assert row["mean_paragraph_score"] == pytest.approx(0.5) and row["url_is_root"] == 0.0


def _reordered(part: dict, swap: tuple[str, str]) -> dict:
    """``part``'s weights with the two names ``swap`` exchanged in the file's order (values kept by name)."""
    names = list(part["weights"])
    a, b = names.index(swap[0]), names.index(swap[1])
    names[a], names[b] = names[b], names[a]
    return {**part, "weights": {name: part["weights"][name] for name in names}}


def test_a_model_reads_the_features_by_name_not_by_position():
    data = json.loads(model.MODEL_FILE.read_text(encoding="utf-8"))
    doc = load_document(PAGE, ExtractConfig())
    paras = units.paragraphs(doc)
    shipped = model.read_model(data)
    data["first_pass"] = _reordered(data["first_pass"], ("log_chars", "in_list"))
    reordered = model.read_model(data)
    assert reordered.first.names != shipped.first.names
    # the same sum taken in another order: equal up to rounding
    np.testing.assert_allclose(reordered.first_pass(paras.rows), shipped.first_pass(paras.rows), rtol=1e-12)
    # the same numbers under two swapped names score differently: the names carry the meaning
    swapped = dict(data["first_pass"]["weights"])
    swapped["log_chars"], swapped["in_list"] = swapped["in_list"], swapped["log_chars"]
    data["first_pass"] = {**data["first_pass"], "weights": swapped}
    assert not np.array_equal(shipped.first_pass(paras.rows), model.read_model(data).first_pass(paras.rows))


def test_columns_swapped_in_a_table_are_read_back_by_name():
    doc = load_document(PAGE, ExtractConfig())
    rows = units.paragraphs(doc).rows
    names = list(rows.names)
    names[0], names[5] = names[5], names[0]
    shuffled = Table.of({name: rows.column(name) for name in names}, tuple(names), len(rows))
    assert not np.array_equal(shuffled.values, rows.values)
    assert np.array_equal(shuffled.select(units.FEATURES), rows.values)
    loaded = model.load_model()
    assert np.array_equal(loaded.first_pass(shuffled), loaded.first_pass(rows))


def test_a_table_or_a_model_that_misses_a_name_is_refused():
    with pytest.raises(ModelError, match="missing \\['b'\\]"):
        Table.of({"a": [1.0], "c": [2.0]}, ("a", "b"), 1)
    with pytest.raises(ModelError, match="unknown \\['z'\\]"):
        Table.of_rows([{"a": 1.0, "b": 2.0, "z": 3.0}], ("a", "b"))
    table = Table.of({"a": [1.0], "b": [2.0]}, ("a", "b"), 1)
    with pytest.raises(ModelError, match="missing \\['c'\\]"):
        table.select(("a", "c"))


def test_the_default_method_scores_the_page_the_same_through_the_named_tables():
    doc = load_document(PAGE, ExtractConfig())
    scored = bodytext.score(doc)
    assert len(scored.scores) == len(scored.paras.starts) and max(scored.scores) > 0.5
