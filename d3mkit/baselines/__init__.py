"""Shared helpers for reference baselines (device choice, seeding, the solution writer).

Baselines live with their benchmark (``d3mkit.benchmarks.<b>.baseline``); a model name is
registered by its benchmark's plug-in record (:func:`d3mkit.benchmarks.plugins.baselines`). torch is imported lazily, only here
and in baseline modules, never on ``import d3mkit``.
"""
