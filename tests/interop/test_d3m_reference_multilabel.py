"""The D3M reference runtime on a root `d3mkit import table` made from a table in D3M's long
multiLabel form (issue 21; docs/import.md, "The D3M reference runtime on an imported multiLabel
root").

Runs when D3MKIT_D3M_PYTHON names a Python with d3m 2022.5.5 (skipped otherwise, as in CI; slow:
d3m starts in several processes). With d3m core alone, d3m loads the root and its views
(`Dataset.load`, `Problem.load`) and scores a predictions file d3mkit writes (several labels per
index) with its own scoring pipeline (`runtime score-predictions`); with the common primitives
(tools/d3m_reference/setup_env.sh) it also fit-scores the root. Every value equals `d3mkit score`
of the same predictions.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
D3M_PYTHON = os.environ.get("D3MKIT_D3M_PYTHON", "")


def _has_d3m() -> bool:
    if not D3M_PYTHON or not Path(D3M_PYTHON).is_file():
        return False
    probe = subprocess.run([D3M_PYTHON, "-c", "import importlib.util as u; "
                            "raise SystemExit(0 if u.find_spec('d3m') else 1)"])
    return probe.returncode == 0


@pytest.mark.slow
@pytest.mark.skipif(not _has_d3m(), reason="set D3MKIT_D3M_PYTHON to a Python with d3m 2022.5.5 "
                    "(tools/d3m_reference/setup_env.sh; docs/d3m-interop.md)")
def test_imported_multilabel_root_in_the_reference_runtime(tmp_path, capsys):
    sys.path.insert(0, str(REPO / "tools" / "d3m_reference"))
    try:
        import fit_score
    finally:
        sys.path.pop(0)
    code = fit_score.main(["--build", "--only", "imported-multilabel", "--score-predictions", "--python", D3M_PYTHON,
                           "--work", str(tmp_path / "work"), "--json"])
    rows = json.loads(capsys.readouterr().out)
    assert code == 0, rows
    assert all(r["loads"] == "yes" for r in rows), rows
    own = {r["metric"]: r for r in rows if r["pipeline"] == "score-predictions"}
    assert set(own) == {"accuracy", "f1Macro"}, rows
    assert all(r["equal"] is True and r["d3m"] not in ("", "empty") for r in own.values()), rows
    pred = (tmp_path / "work" / "imported_multilabel" / "predictions-d3mkit.csv").read_text().splitlines()[1:]
    indices = [line.split(",")[0] for line in pred]
    assert len(set(indices)) < len(indices)              # several labels for some index: label sets scored
    fitted = [r for r in rows if r["pipeline"] == "classification"]
    for r in fitted:       # fit-score where the environment has the primitives, else said why not
        if r["fit-score"] == "ok":
            assert r["equal"] is True, r
        else:
            assert r["fit-score"] == "not run" and "no primitive pipeline" in r["note"], r
