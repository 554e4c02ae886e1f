"""Shared by the server tests: a small challenge made from a synthetic campaign, its teams,
and the scores ``d3mkit score`` gives on the same rows (computed without the server)."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pandas as pd
import pytest

SERVER_MODULES = ("starlette", "uvicorn", "python_multipart", "sqlalchemy", "httpx")


def need_server_extra() -> None:
    for m in SERVER_MODULES:
        pytest.importorskip(m, reason=f'the server tests need {m} (pip install "d3mkit[server]")')


_BUILT: dict[tuple, tuple[Path, dict]] = {}    # arguments -> (a built copy, its tokens)


def make_challenge(tmp: Path, *, systems: int = 3, problems: int = 2, rows: int = 40, seed: int = 0,
                   teams=("alpha", "beta"), fresh: bool = False, **options) -> tuple[Path, Path, Path, dict]:
    """(problems dir, submissions dir, challenge dir, {team: token}) under ``tmp``. The same
    arguments give a copy of the challenge built for them the first time in this test
    session (building takes ~0.3 s; a test changes only its own copy), unless ``fresh``
    (a test of the building itself)."""
    key = (systems, problems, rows, seed, tuple(teams), tuple(sorted(options.items())))
    if fresh:
        return _build_challenge(tmp, systems=systems, problems=problems, rows=rows, seed=seed, teams=teams,
                                **options)
    if key not in _BUILT:
        import atexit
        import shutil
        import tempfile
        cache = Path(tempfile.mkdtemp(prefix="d3mkit-test-challenge-"))
        atexit.register(shutil.rmtree, cache, True)
        tokens = _build_challenge(cache, systems=systems, problems=problems, rows=rows, seed=seed, teams=teams,
                                  **options)[3]
        _BUILT[key] = (cache, tokens)
    import shutil
    cache, tokens = _BUILT[key]
    shutil.copytree(cache, tmp, dirs_exist_ok=True)
    return tmp / "problems", tmp / "submissions", tmp / "challenge", dict(tokens)


def _build_challenge(tmp: Path, *, systems: int, problems: int, rows: int, seed: int, teams,
                     **options) -> tuple[Path, Path, Path, dict]:
    from d3mkit.cli import main
    from d3mkit.evaluate.synthetic import make_campaign
    p, s = make_campaign(tmp, systems=systems, problems=problems, rows=rows, seed=seed, malformed=0)
    ch = tmp / "challenge"
    args = ["challenge", "create", "--problems", str(p), "--out", str(ch), "--seed", "11"]
    for k, v in options.items():
        args += [f"--{k.replace('_', '-')}"] if v is True else [f"--{k.replace('_', '-')}", str(v)]
    with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
        assert main(args) == 0
    tokens = {}
    for t in teams:
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            assert main(["challenge", "team", "add", str(ch), t]) == 0
        tokens[t] = out.getvalue().strip()
    return p, s, ch, tokens


def expected_scores(problems: Path, challenge: Path, problem_id: str, predictions: Path,
                    part: str = "public") -> dict:
    """What ``d3mkit score`` gives for ``predictions`` on the rows of ``part``: the rows of the
    file whose d3mIndex is in that part, against the original task root's truth of them."""
    import d3mkit
    from d3mkit.server.challenge import open_challenge
    ch = open_challenge(challenge)
    truth = ch.truth(problem_id)
    keep = set(pd.read_csv(truth[part], dtype=str)["d3mIndex"])
    df = pd.read_csv(predictions, dtype=str, keep_default_na=False)
    name = problem_id[: -len("_problem")]
    task_root = problems / name
    full = pd.read_csv(task_root / f"{name}_dataset" / "tables" / "learningData.csv", dtype=str)
    targets = full[full["d3mIndex"].isin(keep)][["d3mIndex", "y"]]
    report = d3mkit.score(task_root, df[df["d3mIndex"].isin(keep)], targets=targets)
    return {s.label: s.value for s in report.scores}


def bearer(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}
