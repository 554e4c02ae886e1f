"""d3mkit: benchmark tasks as D3M problem directories, validation, scoring and baselines.

Importing this package is cheap: it never imports torch, pandas-heavy modules or the
benchmarks; each subcommand imports what it needs.
"""

__version__ = "0.1.0"
