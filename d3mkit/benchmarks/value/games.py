"""Board states from games: a PGN reader and random legal games (python-chess).

* :func:`pgn_positions` yields the FEN placement after every half-move of every game in
  a PGN file, duplicates kept (the paper keeps them to preserve the distribution of
  states met in play, e.g. common openings);
* :func:`random_game_positions` plays ``n`` games of uniformly random legal moves from a
  numpy Generator - the built-in offline source;
* :func:`sample_positions` draws the boards of a dataset from a pool of positions;
* :func:`write_random_pgn` writes random games as PGN (how ``datasets/value/sample.pgn``
  was made).

>>> import numpy as np
>>> pos = random_game_positions(2, np.random.default_rng(0), max_plies=10)
>>> len(pos), pos[0] != pos[1]
(20, True)
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Iterator

import numpy as np

from d3mkit.core.errors import D3MKitError, UsageError, error

SAMPLE_PGN = Path(__file__).resolve().parents[3] / "datasets" / "value" / "sample.pgn"


def pgn_positions(path: Path | str, *, max_games: int | None = None) -> Iterator[str]:
    """FEN placements after every half-move of every game in ``path``.

    A game python-chess could not parse fully (an illegal or unreadable move) is an error
    naming the game and its first error, exit code 1. The file is untrusted: it must be a
    regular file (a FIFO or ``/dev/zero`` is refused unopened) within
    ``D3MKIT_MAX_FILE_BYTES``, and reading stops with ``pgn.too_large`` at a line longer
    than ``D3MKIT_MAX_PGN_LINE`` characters, a game of more than ``D3MKIT_MAX_PGN_PLIES``
    half-moves, more than ``D3MKIT_MAX_PGN_POSITIONS`` positions in all, or more than
    ``D3MKIT_MAX_PGN_GAMES`` games when ``max_games`` is not given.
    """
    from d3mkit.io.limits import open_regular
    path = Path(path)
    if not path.exists():
        raise UsageError(f"PGN file not found: {path}", str(path))
    with open_regular(path, "PGN file") as raw, \
            io.TextIOWrapper(raw, encoding="utf-8", errors="replace") as fh:
        yield from _positions_of_stream(fh, str(path), max_games)


class _Lines:
    """The ``readline`` python-chess calls, refusing a line over ``D3MKIT_MAX_PGN_LINE``."""

    def __init__(self, fh, where: str):
        from d3mkit.io.limits import limit
        self.fh, self.where, self.cap, self.n = fh, where, limit("MAX_PGN_LINE"), 0

    def readline(self) -> str:
        line = self.fh.readline(self.cap + 1)
        self.n += 1
        if len(line) > self.cap:
            raise _too_large(self.where, "", "a line is too long", "MAX_PGN_LINE", line=self.n)
        return line


def _too_large(where: str, location: str, what: str, name: str, **fields) -> D3MKitError:
    from d3mkit.io.limits import how_to_raise
    return D3MKitError(error("pgn.too_large", location, f"{what} ({how_to_raise(name)})", where, **fields))


def _builder(where: str, game_no: int, plies_read: int):
    """A python-chess GameBuilder that stops at ``D3MKIT_MAX_PGN_PLIES`` moves in a game and
    at ``D3MKIT_MAX_PGN_POSITIONS`` in all (``plies_read`` before this game)."""
    import chess.pgn

    from d3mkit.io.limits import limit
    cap, total = limit("MAX_PGN_PLIES"), limit("MAX_PGN_POSITIONS")

    class Capped(chess.pgn.GameBuilder):
        plies = 0

        def visit_move(self, board, move):
            self.plies += 1
            if self.plies > cap:
                raise _too_large(where, f"game {game_no}", "the game has too many half-moves",
                                 "MAX_PGN_PLIES")
            if plies_read + self.plies > total:
                raise _too_large(where, f"game {game_no}", "the games hold too many positions in all",
                                 "MAX_PGN_POSITIONS")
            return super().visit_move(board, move)

        def handle_error(self, error: Exception) -> None:
            self.game.errors.append(error)      # reported by the caller; never logged to stderr
    return Capped


def _positions_of_stream(fh, where: str, max_games: int | None) -> Iterator[str]:
    import chess.pgn

    from d3mkit.io.limits import limit
    lines = _Lines(fh, where)
    n = 0
    positions = 0
    while max_games is None or n < max_games:
        try:
            game = chess.pgn.read_game(lines, Visitor=_builder(where, n + 1, positions))
        except D3MKitError:
            raise
        except Exception as exc:  # noqa: BLE001 - python-chess fails in its own ways on garbage
            raise D3MKitError(error("pgn.game", "", "could not read the "
                                    f"game ({type(exc).__name__}: {exc}); is this a PGN file?", where,
                                    within=f"game {n + 1}", line=lines.n)) from None
        if game is None:
            break
        n += 1
        if max_games is None and n > limit("MAX_PGN_GAMES"):
            raise _too_large(where, f"game {n}", "the file holds too many games (or read fewer: "
                             "max_games)", "MAX_PGN_GAMES")
        if game.errors:
            raise D3MKitError(error("pgn.game", f"game {n}",
                                    f"could not read the moves: {game.errors[0]}", where))
        board = game.board()
        for move in game.mainline_moves():
            board.push(move)
            positions += 1
            yield board.board_fen()
    if n == 0:
        raise D3MKitError(error("pgn.empty", "", "no games found", where))
    if positions == 0:
        raise D3MKitError(error("pgn.no_moves", "", f"no moves in the {n} game(s) read: "
                                "not a PGN file, or games without moves", where))


def pgn_text_positions(text: str) -> list[str]:
    """Positions of PGN given as text (tests and small inputs)."""
    return list(_positions_of_stream(io.StringIO(text), "<text>", None))


def random_game(rng: np.random.Generator, max_plies: int = 200):
    """A :class:`chess.pgn.Game` of uniformly random legal moves (stops at game end)."""
    import chess
    import chess.pgn
    board = chess.Board()
    for _ in range(max_plies):
        moves = sorted(board.legal_moves, key=lambda m: m.uci())
        if not moves or board.is_game_over(claim_draw=False):
            break
        board.push(moves[int(rng.integers(len(moves)))])
    return chess.pgn.Game.from_board(board)


def random_game_positions(n_games: int, rng: np.random.Generator, max_plies: int = 200) -> list[str]:
    """Positions after every half-move of ``n_games`` random legal games."""
    out = []
    for _ in range(n_games):
        game = random_game(rng, max_plies)
        board = game.board()
        for move in game.mainline_moves():
            board.push(move)
            out.append(board.board_fen())
    return out


def sample_positions(pool: list[str], n: int, rng: np.random.Generator) -> list[str]:
    """``n`` positions drawn from ``pool`` without replacement when it is big enough,
    with replacement otherwise (duplicates are kept, as in the paper)."""
    if not pool:
        raise D3MKitError(error("value.no_positions", "", "the board source gave no positions"))
    idx = rng.choice(len(pool), size=n, replace=len(pool) < n)
    return [pool[int(i)] for i in idx]


def write_random_pgn(path: Path | str, n_games: int, seed: int, max_plies: int = 60) -> None:
    """Write ``n_games`` random legal games as PGN with headers naming the seed."""
    rng = np.random.default_rng(seed)
    parts = []
    for i in range(n_games):
        game = random_game(rng, max_plies)
        game.headers["Event"] = f"d3mkit random legal game (seed {seed})"
        game.headers["Site"] = "generated"
        game.headers["Round"] = str(i + 1)
        game.headers["White"] = "random"
        game.headers["Black"] = "random"
        game.headers["Date"] = "????.??.??"
        parts.append(str(game))
    Path(path).write_text("\n\n".join(parts) + "\n", encoding="utf-8")
