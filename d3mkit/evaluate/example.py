"""``d3mkit evaluate --example DIR``: a small campaign to run as the README shows —
3 problems (classification and regression, 3 folds each) and 4 systems' submissions,
one of which is broken (every file malformed), so that the scores, the statistics, the
failures and the leaderboard all have something to show."""

from __future__ import annotations

from pathlib import Path

SYSTEMS = ["gradient_boosting", "random_forest", "logistic_baseline", "broken_submitter"]
BROKEN = ("broken_submitter",)


def write_example(root: Path, *, force: bool = False) -> tuple[Path, Path]:
    """Write ``root/problems`` and ``root/submissions`` (built in a staged directory and
    put in place as one); return the two directories."""
    from d3mkit.io.atomic import StagedDir
    from d3mkit.evaluate.synthetic import make_campaign
    with StagedDir(Path(root), force=force or (Path(root).is_dir() and not any(Path(root).iterdir())),
                   param="example") as tmp:
        make_campaign(tmp, systems=len(SYSTEMS), problems=3, rows=90, seed=25, malformed=0.0, folds=3,
                      names=SYSTEMS, broken=BROKEN)
    return Path(root) / "problems", Path(root) / "submissions"
