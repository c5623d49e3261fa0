"""Every method's options are checked when they are built, with one wording:
``NAME must be WHAT, got VALUE``."""

from __future__ import annotations

import re

import pytest

from scrapy_bodytext import extractors

#: (method, option, bad value, what the message says it must be)
BAD_OPTIONS = [
    ("bodytext", "min_paragraph_probability", 1.5, "a number >= 0 and <= 1 or None"),
    ("bodytext", "min_paragraph_probability", "high", "a number >= 0 and <= 1 or None"),
    ("bte", "cjk_token_weight", 0, "a number > 0"),
    ("bte", "cjk_token_weight", float("nan"), "a number > 0"),
    ("bte", "snap_to_blocks", "yes", "True or False"),
    ("ctd", "calibrated", 1, "True or False"),
    ("pvalue", "min_valid_chars", -1, "an integer >= 0"),
    ("pvalue", "min_valid_chars", 2.5, "an integer >= 0"),
    ("pvalue", "faithful", None, "True or False"),
    ("ttr", "method", "median", "one of cetr_kmeans, cetr_threshold, em, farthest_first, kmeans, threshold"),
    ("ttr", "sigma", 0, "a number > 0"),
    ("ttr", "threshold_lambda", -0.1, "a number >= 0"),
    ("ttr", "clusters", 1, "an integer >= 2"),
    ("ttr", "radius", True, "an integer >= 0"),
    ("wuyang", "theta_d", 1.2, "a number >= 0 and <= 1"),
    ("wuyang", "theta_s", 2.5, "an integer >= 0"),
    ("wuyang", "language", "xx", "one of"),
]


@pytest.mark.parametrize(("method", "name", "value", "what"), BAD_OPTIONS)
def test_a_bad_option_names_itself_what_it_must_be_and_what_it_got(method, name, value, what):
    options = extractors.load(method).Options
    with pytest.raises(ValueError, match=rf"^{name} must be {re.escape(what)}.*, got {re.escape(repr(value))}$"):
        options(**{name: value})


@pytest.mark.parametrize("method", extractors.names())
def test_the_defaults_pass_their_own_checks(method):
    extractors.load(method).Options()


def test_optional_values_accept_none():
    assert extractors.load("bodytext").Options(min_paragraph_probability=None).min_paragraph_probability is None
    assert extractors.load("wuyang").Options(language=None).language is None
