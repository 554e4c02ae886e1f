"""``d3mkit validate PREDICTIONS --problem P``: a predictions file checked exactly as
``d3mkit score`` reads it (same issues, every one at once), no scores."""

import pandas as pd
import pytest

from d3mkit.cli import main
from d3mkit.core.errors import D3MKitError
from d3mkit.scoring.score import score_predictions
from d3mkit.tables import write_table
from d3mkit.validation.run import validate_paths as validate_all, validate_predictions
from taskroot_helpers import true_test_rows, wine_root


@pytest.fixture(scope="module")
def wine(tmp_path_factory):
    return wine_root(tmp_path_factory.mktemp("wine"))


good = true_test_rows


BAD = {
    "duplicate index": lambda df: pd.concat([df, df.iloc[[0]]], ignore_index=True),
    "missing rows and a bad label column": lambda df: df.iloc[3:].rename(columns={"class": "klass"}),
    "empty predictions and an unknown index": lambda df: df.assign(**{"class": ""}).replace({"d3mIndex": {df["d3mIndex"].iloc[0]: "99999"}}),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_same_issues_as_score(wine, tmp_path, name):
    f = tmp_path / "predictions.csv"
    write_table(BAD[name](good(wine)), f)
    with pytest.raises(D3MKitError) as exc:
        score_predictions(wine / "wine_problem" / "problemDoc.json", f,
                          dataset=wine / "wine_dataset")
    want = sorted((i.code, i.location) for i in exc.value.issues)
    report = validate_predictions([f], wine)
    got = sorted((i.code, i.location) for i in report.issues())
    assert got == want and not report.valid()
    assert main(["validate", str(f), "--problem", str(wine)]) == 1


def test_valid_predictions(wine, tmp_path, capsys):
    f = tmp_path / "predictions.csv"
    write_table(good(wine), f)
    assert main(["validate", str(f), "--problem", str(wine / "wine_problem")]) == 0
    out = capsys.readouterr().out
    assert "(predictions)" in out and "valid" in out and "accuracy" not in out


def test_predictions_inside_a_problem_directory(wine, tmp_path):
    """Without --problem, a CSV in a problem directory (not its splits file) is a
    predictions file of that problem, not a reason to check the problem and say valid."""
    import shutil
    root = tmp_path / "wine"
    shutil.copytree(wine, root)
    f = root / "wine_problem" / "predictions.csv"
    write_table(BAD["duplicate index"](good(wine)), f)
    report = validate_all([f])
    assert [d.kind for d in report.documents] == ["predictions"]
    assert "predictions.duplicate_index" in {i.code for i in report.issues()}


def test_usage_errors(wine, tmp_path):
    assert main(["validate", str(tmp_path / "nope.csv"), "--problem", str(wine)]) == 2
    f = tmp_path / "p.csv"
    write_table(good(wine), f)
    assert main(["validate", str(f), "--targets", str(f)]) == 2


def test_missing_confidence_does_not_hide_the_row_issues(tmp_path):
    """Every issue at once: a file without the confidence column its problem's metric needs
    that also repeats an index gets both errors (the row checks used to stop at the first)."""
    import json
    from validate_helpers import build_tabular
    from d3mkit.taskroot.model import TaskRoot
    root = build_tabular(tmp_path / "src")
    pdoc = next(root.glob("*_problem/problemDoc.json"))
    doc = json.loads(pdoc.read_text(encoding="utf-8"))
    doc["inputs"]["performanceMetrics"] = [{"metric": "rocAucMacro"}]
    pdoc.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    task = TaskRoot.open(root)
    _, test = task.train_test()
    rows = test[["d3mIndex", "y"]].astype(str).reset_index(drop=True)
    f = tmp_path / "predictions.csv"
    write_table(pd.concat([rows, rows.iloc[[0]]], ignore_index=True), f)
    codes = {i.code for i in validate_predictions([f], root).issues()}
    assert {"predictions.no_confidence", "predictions.duplicate_index"} <= codes, codes
    assert main(["validate", str(f), "--problem", str(root)]) == 1


def test_a_repeated_or_wrong_index_does_not_hide_bad_values(wine, tmp_path):
    """Rows that cannot be lined up with the truth still have their values checked."""
    df = good(wine).astype(str)
    df.loc[2, "class"] = ""
    dup = pd.concat([df, df.iloc[[0]]], ignore_index=True)
    wrong = df.replace({"d3mIndex": {df["d3mIndex"].iloc[0]: "99999"}})
    for bad, index_code in ((dup, "predictions.duplicate_index"), (wrong, "predictions.index_set")):
        f = tmp_path / "predictions.csv"
        write_table(bad, f)
        issues = validate_predictions([f], wine).issues()
        got = {(i.code, i.location) for i in issues}
        assert ("predictions.missing_value", "row 4, column class") in got, got
        assert index_code in {c for c, _ in got}
