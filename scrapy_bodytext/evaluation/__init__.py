"""Evaluation on labelled pages: the corpus format, the metrics and the report."""
