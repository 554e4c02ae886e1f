"""Where a VALUE dataset's boards and images come from, shared by both builders.

:func:`add_source_arguments` declares the options of ``d3mkit build value`` and
``value-detection``; :class:`ValueBuildConfig` holds them, checked once (the builders
take it, or an argparse namespace they turn into one); :func:`make_dataset` turns them
into rows - one per image: the FEN
placement, the image file name, the split side, the generation metadata and the piece
boxes - rendering (or copying, for a VALUE release) the images into the task root.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from d3mkit.benchmarks.config import BuildConfig
from d3mkit.core.errors import InvalidArgument

IMAGE_NAME = "CV_{:07d}.jpg"        # the VALUE release's naming
MEDIA_DIR = "media"


def add_source_arguments(parser) -> None:
    parser.add_argument("--n-train", type=int, default=None, help="TRAIN images (default 200; --from-release "
                        "with its own split: every labelled TRAIN image)")
    parser.add_argument("--n-test", type=int, default=None, help="TEST images (default 50; --from-release with "
                        "its own split: every labelled TEST image)")
    src = parser.add_mutually_exclusive_group()
    src.add_argument("--pgn", type=Path, default=None,
                     help="board states from this PGN file (the position after every half-move)")
    src.add_argument("--random-games", type=int, default=None, metavar="N",
                     help="board states from N random legal games (the default source, N=20)")
    src.add_argument("--from-release", type=Path, default=None, metavar="PATH",
                     help="package the published VALUE release (train/, test/, labels/{train,test}_labels.json; "
                          "every labelled image of each split, or the first --n-train / --n-test) instead "
                          "of rendering")
    parser.add_argument("--size", type=int, default=512, help="rendered image side in pixels (default 512)")
    parser.add_argument("--max-plies", type=int, default=200, help="random games stop after this many half-moves")
    parser.add_argument("--max-games", type=int, default=None,
                        help="read at most this many games of --pgn (e.g. a lichess database dump)")
    parser.add_argument("--name", default=None, help="task root name")
    from d3mkit.io.executor import add_executor_arguments
    add_executor_arguments(parser, "rendering (same bytes whatever the count)")


MAX_IMAGES = 10_000_000   # a guard against typos such as n_train=99999999999


DEFAULT_COUNTS = (200, 50)


def counts_of(args) -> tuple[int | None, int | None]:
    """``(n_train, n_test)`` asked for: as given; else, from a release, None (the release's
    label files say how many), else the defaults (200, 50)."""
    if args.from_release is not None:
        return args.n_train, args.n_test
    return (DEFAULT_COUNTS[0] if args.n_train is None else args.n_train,
            DEFAULT_COUNTS[1] if args.n_test is None else args.n_test)


def check_args(args) -> None:
    n_train, n_test = counts_of(args)
    if (n_train is not None and n_train < 1) or (n_test is not None and n_test < 1):
        raise InvalidArgument("n_train", f"{{n_train}} and {{n_test}} must be at least 1 (got {n_train}, {n_test})")
    if n_train is not None and n_test is not None and n_train + n_test > MAX_IMAGES:
        raise InvalidArgument("n_train", f"{{n_train}} + {{n_test}} must be at most {MAX_IMAGES:,} "
                         f"(one task root), got {n_train + n_test:,}")
    if not 16 <= args.size <= 4096:
        raise InvalidArgument("size", f"must be between 16 and 4096 pixels, got {args.size}")
    if args.random_games is not None and args.random_games < 1:
        raise InvalidArgument("random_games", f"must be at least 1, got {args.random_games}")
    if getattr(args, "max_games", None) is not None and args.max_games < 1:
        raise InvalidArgument("max_games", f"must be at least 1, got {args.max_games}")
    if args.max_plies < 1:
        raise InvalidArgument("max_plies", f"must be at least 1, got {args.max_plies}")


@dataclass(frozen=True)
class ValueBuildConfig(BuildConfig):
    """``d3mkit build value|value-detection``: the shared build fields plus the board
    source (``pgn``, ``random_games`` or ``from_release``; random games by default) and
    the rendering options, checked by :func:`check_args`.

    >>> ValueBuildConfig(n_train=3, n_test=1).size
    512
    >>> ValueBuildConfig(n_train=0)
    Traceback (most recent call last):
    ...
    d3mkit.core.errors.InvalidArgument: error [usage] n_train and n_test must be at least 1 (got 0, 50)
    """

    n_train: int | None = None          # None: 200, or every labelled image of a release's split
    n_test: int | None = None
    pgn: Path | None = None
    random_games: int | None = None
    from_release: Path | None = None
    size: int = 512
    max_plies: int = 200
    max_games: int | None = None
    workers: int | None = None
    scheduler: str | None = None       # a Dask scheduler address (d3mkit.io.executor)
    name: str | None = None

    def check(self) -> None:
        super().check()
        if sum(x is not None for x in (self.pgn, self.random_games, self.from_release)) > 1:
            raise InvalidArgument("pgn", "give one board source: {pgn}, {random_games} or {from_release}")
        check_args(self)
        n_train, n_test = counts_of(self)
        object.__setattr__(self, "n_train", n_train)
        object.__setattr__(self, "n_test", n_test)

    @classmethod
    def of(cls, args) -> "ValueBuildConfig":
        """``args`` itself when it is a config, else the config of an argparse namespace."""
        return args if isinstance(args, cls) else cls.from_args(args)


def source_parameters(args) -> dict:
    if args.from_release is not None:
        return {"source": "release", "release": str(args.from_release)}
    if args.pgn is not None:
        return {"source": "pgn", "pgn": str(args.pgn), "maxGames": getattr(args, "max_games", None)}
    return {"source": "random-games", "randomGames": args.random_games or 20, "maxPlies": args.max_plies}


def open_writer(args: "ValueBuildConfig", name: str, benchmark: str):
    """The :class:`~d3mkit.taskroot.writer.TaskRootWriter` of a VALUE build (``with`` it), its
    manifest parameters (counts, size, renderer, source) the same for both builders."""
    from d3mkit.taskroot.writer import TaskRootWriter
    params = {"nTrain": args.n_train, "nTest": args.n_test, "size": args.size,
              "renderer": "d3mkit VALUE-synthetic (Pillow), not the paper's Blender scene",
              **source_parameters(args)}
    return TaskRootWriter(args.out, name, benchmark=benchmark, seed=args.seed, parameters=params,
                          force=args.force)


def make_dataset(writer, args, rng: np.random.Generator) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Write the images under ``<name>_dataset/media/`` and return ``(rows, boxes)``:
    rows ``d3mIndex, image, board, split`` + metadata; boxes ``d3mIndex, image, symbol,
    square, x_min, y_min, x_max, y_max`` (empty for a release without boxes)."""
    from d3mkit.benchmarks.value.boards import square_name
    if args.from_release is not None:
        from d3mkit.benchmarks.value.release import copy_release
        rows, boxes = copy_release(args.from_release, writer.media_path(MEDIA_DIR + "/x").parent,
                                   args.n_train, args.n_test)
    else:
        n = args.n_train + args.n_test
        from d3mkit.benchmarks.value import games
        from d3mkit.benchmarks.value.render import render_many
        if args.pgn is not None:
            pool = list(games.pgn_positions(args.pgn, max_games=getattr(args, "max_games", None)))
        else:
            pool = games.random_game_positions(args.random_games or 20, rng, args.max_plies)
        fens = games.sample_positions(pool, n, rng)
        names = [IMAGE_NAME.format(i) for i in range(n)]
        media = writer.media_path(f"{MEDIA_DIR}/{names[0]}").parent
        seed = int(rng.integers(2 ** 31))
        from d3mkit.io.executor import from_args
        with from_args(args) as ex:   # --workers N | --scheduler ADDRESS of d3mkit build
            out = render_many(fens, [media / nm for nm in names], seed=seed, size=args.size,
                              executor=ex, progress=not args.quiet and sys.stderr.isatty())
        rows = pd.DataFrame({"image": names, "board": fens})
        for key in ("azimuth", "elevation", "zoom", "light"):
            rows[key] = [p[key] for _, p in out]
        rows["renderSeed"] = seed
        box_rows = [(i, names[i], b[0], square_name(b[1]), *b[2:]) for i, (bx, _) in enumerate(out)
                    for b in bx]
        boxes = pd.DataFrame(box_rows, columns=["d3mIndex", "image", "symbol", "square",
                                                "x_min", "y_min", "x_max", "y_max"])
    rows.insert(0, "d3mIndex", np.arange(len(rows), dtype=np.int64))
    if "split" not in rows.columns:       # a release keeps its official split
        rows["split"] = ["TRAIN"] * args.n_train + ["TEST"] * (len(rows) - args.n_train)
    return rows, boxes


def splits_frame(rows: pd.DataFrame, key: str = "d3mIndex") -> pd.DataFrame:
    """dataSplits rows: TRAIN/TEST as drawn (the first n-train images are TRAIN)."""
    return pd.DataFrame({"d3mIndex": rows[key].to_numpy(), "type": rows["split"].to_numpy(),
                         "repeat": 0, "fold": 0})
