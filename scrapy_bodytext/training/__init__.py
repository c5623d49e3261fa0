"""Fitting the default method on a labelled corpus, and judging it honestly.

Everything here runs offline; the extractor itself only reads the model file this writes. Quality figures are out-of-fold: each page is scored
by a model fitted without its source and without its site (see ``folds``).
"""
