"""Abstraction-capability benchmark (Hudáky, Lehotay-Kéry and Kiss, J. Imaging 2021).

Ten 28x28 shapes, each a subset of a 3x3 grid of full-length lines, are transformed
(rotation, translation, resizing, diagonals, mirroring) and noised; a classifier is
trained on a set where only the first K shapes appear transformed and tested on all ten
shapes transformed. The construction follows the paper's published notebook
(``docs/benchmarks/abstraction.md`` says where and how). Modules:

* :mod:`.shapes` — the ten shapes, their rendering and the contact sheet;
* :mod:`.transforms` — the transformations (outcome counts, identity outcome) and noise;
* :mod:`.protocol` — seeded, vectorised train/test sample generation;
* :mod:`.cli` — ``d3mkit build abstraction`` (task roots);
* :mod:`.metrics` — expectedAccuracyWithoutAbstraction, chanceCorrectedAccuracy,
  heldOutShapeAccuracy;
* :mod:`.model` / :mod:`.baseline` — the paper's CNN (torch, imported lazily) and
  ``d3mkit baseline --model abstraction-cnn``;
* :mod:`.demo` — the abstraction part of ``d3mkit demo``.
"""
