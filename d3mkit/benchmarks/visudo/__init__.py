"""ViSudo-PC: visual Sudoku puzzle classification (Augustine et al., NeSy 2022).

A puzzle is a d x d grid of 28x28 grayscale images; the task is to say whether the
grid, read through the images' (hidden) labels, is a correctly solved Sudoku.

Modules, each owning one thing:

* :mod:`.idx` — reading (and, for tests, writing) IDX files with clear errors;
* :mod:`.sources` — image sources: ``mnist``, ``emnist``, ``fmnist``, ``kmnist`` from IDX
  files (optional checksum-verified download) and the offline ``digits`` and ``glyphs``;
* :mod:`.sudoku` — valid label layouts, correctness checks, peer structure (vectorised);
* :mod:`.generator` — image pools, overlap, the five label strategies, corruption;
* :mod:`.render` — puzzle and cell PNGs;
* :mod:`.cli` — ``d3mkit build visudo``: one D3M task root per (configuration, split);
* :mod:`.models` and :mod:`.baseline` — Baseline-Digit, Baseline-Visual and a NeSy
  baseline (``d3mkit baseline --model digit|visual|nesy``);
* :mod:`.demo` — the ``visudo`` part of ``d3mkit demo``.
"""
