"""The bottom layer: typed errors and issue codes, the metric registry, entry points and
lazy imports. Imports nothing else of d3mkit."""
