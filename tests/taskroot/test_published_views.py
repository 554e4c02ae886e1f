"""Published views as the data supply publishes them (issue 20): a view's problemDoc keeps
the full task's testSize and stratified; a 4.0.0 view keeps the full problemDoc and names
its dataset through datasetViewMaps; stratification is held only where declared; views
refuses a task root that validate rejects. All on small roots written here."""

import json

import pytest

from d3mkit.documents.convert import to_400
from d3mkit.core.errors import D3MKitError
from d3mkit.validation.run import validate_paths
from d3mkit.taskroot.views import write_views
from validate_helpers import Root, build_tabular


def _codes(paths, errors_only=False):
    return {i.code for i in validate_paths(paths).issues() if i.is_error or not errors_only}


def _edit(path, fn):
    d = json.loads(path.read_text())
    fn(d)
    path.write_text(json.dumps(d))


@pytest.fixture
def published(tmp_path):
    """A task root with views whose problemDocs keep the full task's dataSplits section."""
    tab = Root(build_tabular(tmp_path / "r", "t"))
    views = write_views(tab.root, tmp_path / "v")
    full = json.loads(tab.pr_doc.read_text())["inputs"]["dataSplits"]
    for v in ("TRAIN", "TEST", "SCORE"):
        _edit(views[v] / f"problem_{v}" / "problemDoc.json",
              lambda d: d["inputs"].__setitem__("dataSplits", dict(full)))
    return tab, views


@pytest.mark.slow
def test_views_keep_the_full_split_and_validate(published):
    _, views = published
    for v, path in views.items():
        assert _codes([path]) == set(), v
        assert _codes([path / f"problem_{v}"]) == set(), v


def test_the_same_files_outside_a_view_are_held_to_testsize(published, tmp_path):
    _, views = published
    import shutil
    moved = tmp_path / "plain"
    shutil.copytree(views["TRAIN"], moved)     # TRAIN/ named otherwise: not a published view
    (moved / "problem_TRAIN").rename(moved / "t_problem")
    (moved / "dataset_TRAIN").rename(moved / "t_dataset")
    assert {"splits.test_size", "splits.stratification"} <= _codes([moved])


@pytest.mark.slow
def test_40_view_maps_pair_each_view_with_its_dataset(published):
    tab, views = published
    full_id = "t_dataset"
    maps = {k: [{"from": full_id, "to": f"{full_id}_{k.upper()}"}] for k in ("train", "test", "score")}
    for v in ("TRAIN", "TEST", "SCORE"):
        p = views[v] / f"problem_{v}" / "problemDoc.json"
        doc, issues = to_400(json.loads(p.read_text()))
        assert not [i for i in issues if i.is_error]
        doc["inputs"]["data"][0]["datasetID"] = full_id      # 4.0.0: the full problem's datasetID
        doc["inputs"]["dataSplits"]["datasetViewMaps"] = maps
        p.write_text(json.dumps(doc))
    # validated with the full dataset in reach (the whole tree) and each view alone
    assert _codes([tab.root.parent, views["TRAIN"].parent], errors_only=True) == set()
    for v in ("TRAIN", "TEST", "SCORE"):
        assert _codes([views[v] / f"problem_{v}"], errors_only=True) == set(), v


def test_stratification_only_where_declared(tmp_path):
    tab = Root(build_tabular(tmp_path, "t"))
    # move one TEST row of class a to TRAIN and one TRAIN row of class b to TEST: share kept, strata off
    import pandas as pd
    sp = tab.root / "t_problem" / "dataSplits.csv"
    ld = pd.read_csv(tab.ld)
    s = pd.read_csv(sp)
    y = dict(zip(ld["d3mIndex"], ld["y"]))
    s["y"] = s["d3mIndex"].map(y)
    a_test = s.index[(s["y"] == "a") & (s["type"] == "TEST")][:2]
    b_train = s.index[(s["y"] == "b") & (s["type"] == "TRAIN")][:2]
    s.loc[a_test, "type"], s.loc[b_train, "type"] = "TRAIN", "TEST"
    s.drop(columns="y").to_csv(sp, index=False)
    report = validate_paths([tab.root])
    strat = [i for i in report.issues() if i.code == "splits.stratification"]
    assert strat and all(i.severity == "warning" for i in strat) and report.valid()
    tab.pr(lambda d: d["inputs"]["dataSplits"].pop("stratified"))
    assert "splits.stratification" not in _codes([tab.root])


def test_views_refuses_a_root_validate_rejects(tmp_path):
    tab = Root(build_tabular(tmp_path / "r", "t"))
    tab.pr(lambda d: d["inputs"]["data"][0]["targets"][0].update(colName="nope"))
    with pytest.raises(D3MKitError) as e:
        write_views(tab.root, tmp_path / "v")
    assert {i.code for i in e.value.issues} == {"target.column_mismatch"}
    assert not (tmp_path / "v").exists()
