"""Shared helpers for reference baselines (device choice, seeding, the solution writer).

Baselines live with their benchmark (``d3mkit.benchmarks.<b>.baseline``); the registry of
model names is :data:`d3mkit.benchmarks.BASELINES`. torch is imported lazily, only here
and in baseline modules, never on ``import d3mkit``.
"""
