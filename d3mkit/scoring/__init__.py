"""Scoring: the metric registry, standard metrics, predictions I/O and ``d3mkit score``."""
