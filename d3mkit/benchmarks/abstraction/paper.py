"""The paper's Tables 1-13: what each one trained and tested, and the numbers it reported.

What this module owns: :func:`table` — the protocol of every cell of a table (row
label -> transformation, K, noise) — and :data:`PAPER`, the reported test accuracies
(mean, standard deviation, in percent, over 5 repetitions; the notebook tests each
network on as many images as it trained on).

* Table 1: K = 0 (training on original shapes), test transformed; n_train 250-2000. Its
  noise rows train on clean originals and test on noisy originals.
* Table 2: K = 10 (training transformed as the test), no noise; noise rows train and test
  noisy. Table 3: K = 10, noise 4 on both sets.
* Tables 4-8: K = 0, 2, 5, 8, 10 with noise 2; Tables 9-13: the same with noise 4;
  n_train 1000-10000.

>>> t = table(8)
>>> t.k, t.n_train, [r.transform for r in t.rows]
(10, (1000, 2000, 5000, 10000), ['rotation', 'translation', 'resize', 'diagonals', 'mirror'])
>>> PAPER[8]["Moved"][0]
(57.6, 8.11)
"""

from __future__ import annotations

from dataclasses import dataclass

from d3mkit.benchmarks.abstraction.protocol import Protocol

REPETITIONS = 5


@dataclass(frozen=True)
class Row:
    label: str
    transform: str
    noise: float = 0.0
    test_noise: float | None = None


@dataclass(frozen=True)
class Table:
    number: int
    title: str
    k: int
    rows: tuple[Row, ...]
    n_train: tuple[int, ...]

    def protocol(self, row: Row, n_train: int, n_test: int | None = None) -> Protocol:
        return Protocol(row.transform, transformed=self.k, n_train=n_train, n_test=n_test,
                        noise=row.noise, test_noise=row.test_noise)


TRANSFORM_ROWS = (Row("Rotated", "rotation"), Row("Moved", "translation"),
                  Row("Resized", "resize"), Row("With diagonals", "diagonals"),
                  Row("Mirrored", "mirror"))
SMALL = (250, 500, 1000, 2000)
LARGE = (1000, 2000, 5000, 10000)


def table(number: int) -> Table:
    """The protocol of the paper's table ``number`` (1-13)."""
    if number == 1:
        rows = ((Row("Original", "none"),) + TRANSFORM_ROWS
                + tuple(Row(f"Level {l} noise", "none", 0.0, float(l)) for l in (2, 4, 6)))
        return Table(1, "Training set: original objects; test set: transformed objects", 0, rows, SMALL)
    if number == 2:
        rows = ((Row("Original", "none"),) + TRANSFORM_ROWS
                + tuple(Row(f"Level {l} noise", "none", float(l)) for l in (2, 4, 6)))
        return Table(2, "Training set: transformed objects; test set: transformed objects", 10, rows, SMALL)
    if number == 3:
        rows = tuple(Row(r.label, r.transform, 4.0) for r in (Row("Original", "none"),) + TRANSFORM_ROWS)
        return Table(3, "Training and test set: transformed objects with level 4 noise", 10, rows, SMALL)
    if 4 <= number <= 13:
        noise = 2.0 if number <= 8 else 4.0
        k = (0, 2, 5, 8, 10)[(number - 4) % 5]
        rows = tuple(Row(r.label, r.transform, noise) for r in TRANSFORM_ROWS)
        return Table(number, f"The number of transformed objects: {k}; level of noise: {noise:g}",
                     k, rows, LARGE)
    raise ValueError(f"the paper has Tables 1-13, not {number}")


# reported accuracies in percent: PAPER[table][row label] = [(mean, std) per n_train column]
PAPER: dict[int, dict[str, list[tuple[float, float]]]] = {
    1: {
        'Original': [(91.6, 12.08), (100.0, 0.0), (100.0, 0.0), (100.0, 0.0)],
        'Rotated': [(40.4, 8.36), (42.8, 3.87), (40.0, 3.35), (36.0, 3.29)],
        'Moved': [(24.0, 3.16), (26.4, 2.33), (25.4, 1.62), (25.8, 1.6)],
        'Resized': [(44.2, 7.96), (56.8, 4.96), (56.6, 5.85), (58.8, 2.48)],
        'With diagonals': [(36.0, 10.2), (38.0, 7.48), (47.6, 18.94), (55.4, 19.17)],
        'Mirrored': [(47.6, 19.97), (59.4, 12.18), (69.8, 17.67), (51.6, 19.02)],
        'Level 2 noise': [(74.6, 13.28), (96.8, 2.56), (94.8, 5.19), (99.0, 0.0)],
        'Level 4 noise': [(31.0, 13.43), (22.2, 2.14), (27.8, 5.19), (28.4, 3.56)],
        'Level 6 noise': [(14.8, 4.17), (12.4, 1.5), (16.8, 0.4), (16.8, 0.75)],
    },
    2: {
        'Original': [(93.8, 8.11), (100.0, 0.0), (100.0, 0.0), (100.0, 0.0)],
        'Rotated': [(45.2, 2.79), (76.0, 3.58), (100.0, 0.0), (100.0, 0.0)],
        'Moved': [(26.2, 4.92), (38.0, 3.52), (78.8, 6.52), (98.0, 0.63)],
        'Resized': [(66.6, 10.52), (87.8, 2.4), (97.2, 0.75), (99.6, 0.49)],
        'With diagonals': [(77.4, 7.61), (97.8, 4.4), (100.0, 0.0), (100.0, 0.0)],
        'Mirrored': [(95.6, 5.39), (100.0, 0.0), (100.0, 0.0), (100.0, 0.0)],
        'Level 2 noise': [(78.2, 7.6), (99.8, 0.4), (100.0, 0.0), (100.0, 0.0)],
        'Level 4 noise': [(53.4, 11.04), (79.6, 8.31), (97.6, 1.85), (99.0, 0.0)],
        'Level 6 noise': [(22.4, 9.09), (47.8, 9.52), (74.4, 2.87), (90.8, 0.98)],
    },
    3: {
        'Original': [(52.0, 3.74), (82.4, 7.0), (98.4, 0.8), (98.8, 0.4)],
        'Rotated': [(22.0, 1.1), (36.0, 5.02), (54.6, 4.63), (79.8, 3.76)],
        'Moved': [(12.0, 2.45), (17.2, 1.33), (26.6, 4.63), (56.6, 4.88)],
        'Resized': [(25.4, 4.32), (51.8, 7.47), (66.2, 5.71), (87.2, 2.48)],
        'With diagonals': [(42.0, 10.22), (63.4, 10.67), (92.2, 3.76), (98.8, 0.4)],
        'Mirrored': [(44.6, 4.59), (71.8, 4.53), (88.0, 6.03), (96.6, 4.32)],
    },
    4: {
        'Rotated': [(42.8, 3.54), (46.8, 1.17), (46.6, 1.02), (46.8, 2.04)],
        'Moved': [(26.8, 0.75), (25.2, 1.6), (25.2, 0.75), (25.2, 1.83)],
        'Resized': [(53.2, 2.56), (53.2, 3.06), (52.8, 2.56), (55.2, 3.43)],
        'With diagonals': [(88.2, 7.3), (87.8, 8.08), (92.6, 4.8), (93.8, 5.38)],
        'Mirrored': [(90.0, 7.69), (83.0, 9.36), (93.8, 5.42), (84.4, 10.25)],
    },
    5: {
        'Rotated': [(42.2, 1.94), (43.8, 1.17), (48.2, 3.71), (46.4, 1.85)],
        'Moved': [(17.8, 0.75), (21.6, 0.8), (22.8, 0.75), (22.8, 0.4)],
        'Resized': [(49.4, 3.44), (48.4, 3.38), (48.6, 5.75), (48.8, 6.52)],
        'With diagonals': [(59.2, 9.33), (54.6, 9.29), (64.0, 5.76), (71.4, 9.16)],
        'Mirrored': [(49.2, 16.07), (60.4, 9.6), (67.2, 12.02), (68.4, 8.26)],
    },
    6: {
        'Rotated': [(59.6, 4.03), (62.0, 0.63), (64.8, 2.4), (64.2, 0.75)],
        'Moved': [(29.8, 1.17), (46.6, 1.02), (50.4, 0.49), (51.0, 0.0)],
        'Resized': [(61.0, 2.0), (67.4, 2.65), (71.0, 3.41), (74.6, 1.96)],
        'With diagonals': [(50.4, 0.8), (50.2, 0.4), (57.2, 9.11), (51.4, 2.33)],
        'Mirrored': [(50.0, 0.0), (50.0, 0.0), (50.0, 0.0), (50.0, 0.0)],
    },
    7: {
        'Rotated': [(74.0, 3.58), (85.2, 0.75), (85.6, 0.49), (86.6, 1.02)],
        'Moved': [(38.4, 4.96), (74.4, 2.06), (80.2, 0.4), (80.6, 0.49)],
        'Resized': [(77.4, 1.74), (82.8, 1.47), (85.8, 1.17), (88.6, 1.36)],
        'With diagonals': [(81.6, 1.74), (86.6, 5.61), (92.4, 5.92), (97.0, 2.61)],
        'Mirrored': [(80.8, 0.98), (82.2, 4.4), (82.8, 4.66), (85.4, 3.93)],
    },
    8: {
        'Rotated': [(83.2, 4.07), (99.4, 0.49), (99.8, 0.4), (99.8, 0.4)],
        'Moved': [(57.6, 8.11), (93.0, 1.1), (99.0, 0.0), (99.2, 0.4)],
        'Resized': [(92.2, 2.79), (98.0, 0.0), (99.0, 0.0), (99.0, 0.0)],
        'With diagonals': [(100.0, 0.0), (100.0, 0.0), (100.0, 0.0), (100.0, 0.0)],
        'Mirrored': [(100.0, 0.0), (100.0, 0.0), (100.0, 0.0), (99.8, 0.4)],
    },
    9: {
        'Rotated': [(48.2, 1.17), (48.8, 1.33), (48.4, 0.49), (48.6, 0.49)],
        'Moved': [(20.6, 1.62), (20.6, 1.74), (19.4, 1.2), (19.8, 1.17)],
        'Resized': [(49.0, 2.68), (48.8, 3.06), (46.0, 4.6), (50.4, 1.62)],
        'With diagonals': [(82.4, 8.89), (95.6, 1.85), (98.0, 0.0), (98.8, 0.4)],
        'Mirrored': [(89.2, 3.19), (98.4, 0.8), (98.8, 0.4), (98.8, 0.4)],
    },
    10: {
        'Rotated': [(39.2, 4.31), (43.6, 1.62), (49.4, 2.06), (52.6, 0.8)],
        'Moved': [(16.2, 0.75), (18.0, 0.89), (20.4, 0.49), (22.6, 0.8)],
        'Resized': [(37.0, 2.97), (44.4, 3.61), (47.0, 6.07), (48.2, 3.31)],
        'With diagonals': [(56.0, 11.52), (79.2, 6.24), (89.8, 3.54), (88.0, 8.63)],
        'Mirrored': [(42.6, 5.78), (60.0, 16.53), (66.0, 14.39), (87.0, 6.75)],
    },
    11: {
        'Rotated': [(43.6, 2.42), (58.6, 1.02), (65.4, 1.74), (63.4, 1.02)],
        'Moved': [(20.4, 1.2), (30.4, 0.8), (44.8, 0.98), (49.2, 0.75)],
        'Resized': [(47.8, 3.6), (58.8, 2.64), (69.4, 4.22), (72.2, 2.14)],
        'With diagonals': [(53.2, 2.4), (51.4, 1.85), (55.6, 5.75), (55.6, 7.0)],
        'Mirrored': [(51.2, 2.04), (50.0, 0.0), (50.6, 0.8), (51.6, 2.33)],
    },
    12: {
        'Rotated': [(51.6, 3.98), (69.4, 2.65), (85.4, 1.36), (86.0, 1.1)],
        'Moved': [(21.0, 1.55), (40.8, 0.75), (70.6, 2.06), (77.8, 1.17)],
        'Resized': [(59.8, 3.6), (73.8, 2.48), (81.2, 0.98), (84.0, 1.1)],
        'With diagonals': [(79.4, 4.67), (91.2, 4.66), (95.6, 3.14), (98.0, 0.63)],
        'Mirrored': [(78.4, 0.49), (81.8, 2.93), (86.6, 5.08), (90.6, 5.95)],
    },
    13: {
        'Rotated': [(54.0, 5.51), (75.4, 2.06), (98.0, 0.0), (99.0, 0.0)],
        'Moved': [(24.0, 4.34), (49.6, 8.82), (89.2, 1.72), (96.6, 0.49)],
        'Resized': [(69.8, 4.26), (88.4, 1.85), (95.8, 0.75), (97.0, 0.0)],
        'With diagonals': [(93.2, 0.4), (99.0, 0.0), (99.0, 0.0), (99.0, 0.0)],
        'Mirrored': [(97.4, 1.74), (99.0, 0.0), (99.0, 0.0), (99.0, 0.0)],
    },
}
