"""Benchmarks register like metrics (issue 19 item 3): a third-party distribution with a
``d3mkit.benchmarks`` entry point appears in ``build``, ``baseline`` and ``demo``; d3mkit's
own benchmarks come through the same group; lookup by name is lazy."""

from __future__ import annotations

import textwrap
from importlib.metadata import EntryPoint

import pytest

from d3mkit.core import entrypoints
from d3mkit.benchmarks import plugins
from d3mkit.cli import main

TOY = textwrap.dedent('''
    """A toy third-party benchmark: iris under another name, one constant baseline."""
    from d3mkit.benchmarks.plugins import Baseline, Benchmark, Card, Requirement


    def options(parser):
        parser.add_argument("--toy-name", default="toy", help="toy: task root name")


    def build(args):
        from d3mkit.benchmarks.tabular import documents, load_table
        from d3mkit.taskroot.writer import TaskRootWriter
        df = load_table("iris", args.seed)
        ddoc, pdoc = documents(args.toy_name, "iris", df, args.seed, 0.2)
        with TaskRootWriter(args.out, args.toy_name, benchmark="toy", seed=args.seed,
                            parameters={}, force=args.force) as w:
            w.write_table("tables/learningData.csv", df)
            w.write_dataset_doc(ddoc)
            w.write_problem_doc(pdoc)
        return [w.root]


    def baseline_options(parser):
        parser.add_argument("--toy-label", default="setosa", help="toy constant: the label predicted")


    def constant(task, model, args):
        import pandas as pd
        from d3mkit.baselines.common import write_solution
        train, test = task.split_indices(0, 0)
        target = task.problem.target_names[0]
        return write_solution(task, pd.DataFrame({"d3mIndex": test, target: args.toy_label}),
                              model=model, info={"label": args.toy_label})


    def demo(out, device, echo):
        echo(f"   toy demo into {out.name}")


    NEEDS = Requirement(path="weights.bin", what="the toy weights (toy-download)")
    BENCHMARK = Benchmark("toy", "A toy third-party benchmark.", build=build, build_options=options,
                          baselines={"constant": Baseline(run=constant, options=baseline_options),
                                     "needy": Baseline(run=constant, requires=("nothere_pkg_zz",)),
                                     "needs-data": Baseline(run=constant, requires=(NEEDS,))},
                          default_model="constant", demo=demo,
                          card=Card(citation="Toy, T. A toy benchmark. 2026.", license="toy-licence-1.0",
                                    rai={"dataCollection": "iris, renamed", "dataBiases": "toy biases",
                                         "dataLimitations": "a toy", "personalSensitiveInformation": "none",
                                         "dataUseCases": "tests"}))
    BROKEN = 42
''')


@pytest.fixture
def toy(tmp_path, monkeypatch):
    """``toybench`` installed the way pip leaves a package: the module and a dist-info
    with entry_points.txt, on sys.path, so importlib.metadata finds it."""
    site = tmp_path / "site"
    (site / "toybench-0.1.dist-info").mkdir(parents=True)
    (site / "toybench.py").write_text(TOY, encoding="utf-8")
    (site / "toybench-0.1.dist-info" / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: toybench\nVersion: 0.1\n", encoding="utf-8")
    (site / "toybench-0.1.dist-info" / "entry_points.txt").write_text(
        "[d3mkit.benchmarks]\ntoy = toybench:BENCHMARK\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setattr(plugins, "_LOADED", {})
    monkeypatch.setattr(plugins, "_ISSUES", [])
    yield site
    import sys
    sys.modules.pop("toybench", None)


def test_own_benchmarks_come_through_the_entry_point_group():
    own = [ep.name for ep in entrypoints.own(plugins.ENTRY_POINT_GROUP)]
    assert own == ["tabular", "value", "value-detection", "visudo", "abstraction", "prism"]
    records = plugins.benchmarks()
    assert all(records[n].source == "d3mkit" for n in own)
    models = plugins.baselines()
    assert models["digit"][0].name == "visudo" and models["mean"][0].name == "tabular"
    assert {n for n, b in records.items() if b.demo} == {"tabular", "value", "visudo", "abstraction", "prism"}
    assert set(plugins.reproducers()) == {"problems", "value", "visudo", "abstraction"}


@pytest.mark.slow
def test_a_third_party_benchmark_appears_in_build_baseline_and_demo(toy, tmp_path, capsys):
    assert "toy" in plugins.names()
    with pytest.raises(SystemExit):
        main(["build", "--help"])
    assert "A toy third-party benchmark." in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["baseline", "--help"])
    out = capsys.readouterr().out
    assert "constant" in out and "--toy-label" in out

    assert main(["build", "toy", "--out", str(tmp_path / "out"), "--toy-name", "mytoy"]) == 0
    root = tmp_path / "out" / "mytoy"
    assert capsys.readouterr().out.strip() == str(root)
    # the task root's manifest names "toy": its default model is the plug-in's
    assert main(["baseline", str(root), "--toy-label", "setosa"]) == 0
    out = capsys.readouterr().out
    assert "accuracy" in out and str(root / "mytoy_solution") in out
    assert "setosa" in (root / "mytoy_solution" / "predictions.csv").read_text()
    # a model of another benchmark is refused for it, naming the plug-in's models
    assert main(["baseline", str(root), "--model", "mean"]) == 2
    assert "its models: constant" in capsys.readouterr().err

    assert main(["demo", "--only", "toy", "--out", str(tmp_path / "demo")]) == 0
    assert "== [1/1] toy ==\n   toy demo into toy" in capsys.readouterr().out
    assert plugins.get("toy").source == "entry point toy = toybench:BENCHMARK"


def test_a_broken_plugin_is_a_warning_and_left_out(toy, monkeypatch):
    bad = [EntryPoint("bad", "toybench:BROKEN", plugins.ENTRY_POINT_GROUP),
           EntryPoint("gone", "nothere_at_all:BENCHMARK", plugins.ENTRY_POINT_GROUP),
           EntryPoint("tabular", "toybench:BENCHMARK", plugins.ENTRY_POINT_GROUP)]
    monkeypatch.setattr(entrypoints, "third_party", lambda group: bad)
    names = plugins.benchmarks()
    assert "bad" not in names and "gone" not in names
    assert names["tabular"].source == "d3mkit"          # a third party cannot take an own name
    issues = plugins.plugin_issues()
    assert [(i.code, i.location) for i in issues] == [("benchmarks.plugin", "entry point bad"),
                                                      ("benchmarks.plugin", "entry point gone")]
    assert "int, not a d3mkit.benchmarks.plugins.Benchmark" in issues[0].message


def test_build_says_why_a_plugin_is_absent(toy, monkeypatch, capsys):
    monkeypatch.setattr(entrypoints, "third_party",
                        lambda group: [EntryPoint("bad", "toybench:BROKEN", plugins.ENTRY_POINT_GROUP)])
    with pytest.raises(SystemExit):
        main(["build", "--help"])
    out, err = capsys.readouterr()
    assert "bad" not in out.split("positional arguments")[1]
    assert err.startswith("entry point bad: warning [benchmarks.plugin] could not load benchmark plugin toybench:BROKEN")


def test_a_broken_own_entry_point_fails_loudly(monkeypatch):
    monkeypatch.setattr(plugins, "_LOADED", {})
    monkeypatch.setattr(entrypoints, "own",
                        lambda group: [EntryPoint("gone", "d3mkit.benchmarks.nothere:B", group)])
    with pytest.raises(ImportError, match="gone = d3mkit.benchmarks.nothere:B"):
        plugins.get("gone")


def test_names_import_nothing(monkeypatch):
    """Listing the names reads metadata only; a record module is imported on lookup."""
    import sys
    monkeypatch.setattr(plugins, "_LOADED", {})
    for mod in [m for m in sys.modules if m.endswith(".benchmark") or m.endswith("tabular_benchmark")]:
        monkeypatch.delitem(sys.modules, mod)
    assert "visudo" in plugins.names()
    assert "d3mkit.benchmarks.visudo.benchmark" not in sys.modules
    assert plugins.get("visudo").default_model == "visual"
    assert "d3mkit.benchmarks.visudo.benchmark" in sys.modules
    assert plugins.get("visudo").build._obj is None     # the builder is not imported until called


@pytest.mark.slow
def test_a_baseline_says_what_it_requires_before_any_work(toy, tmp_path, capsys):
    """``Baseline.requires`` is checked first: a missing module (with how to install it) or
    a missing data file of the task root is one line, exit 3, and nothing is written."""
    assert main(["build", "toy", "--out", str(tmp_path / "out"), "--toy-name", "mytoy"]) == 0
    root = tmp_path / "out" / "mytoy"
    capsys.readouterr()
    assert main(["baseline", str(root), "--model", "needy"]) == 3
    err = capsys.readouterr().err
    assert err == ("error [dependency.missing] this baseline needs nothere_pkg_zz, which is not installed: "
                   "pip install nothere_pkg_zz\n")
    assert main(["baseline", str(root), "--model", "needs-data"]) == 3
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith(f"{root / 'weights.bin'}: error [dependency.data]")
    assert "the toy weights (toy-download)" in err[0]
    assert not (root / "mytoy_solution").exists()
    (root / "weights.bin").write_bytes(b"w")
    assert main(["baseline", str(root), "--model", "needs-data"]) == 0


def test_a_torch_baseline_without_torch_stops_before_any_work(tmp_path, monkeypatch, capsys):
    """The arguments and the task root are checked first (a usage error or a broken root is
    reported whether torch is there or not); then the requirement, before any training."""
    from d3mkit.benchmarks.abstraction.cli import build_task_root
    from d3mkit.benchmarks.abstraction.protocol import Protocol
    root = build_task_root(tmp_path, Protocol("rotation", 5, 30, 20, 0), name="shapes")
    monkeypatch.setitem(__import__("sys").modules, "torch", None)
    import d3mkit.baselines.ddp as ddp
    monkeypatch.setattr(ddp, "launched", lambda: pytest.fail("work began before the check"))
    assert main(["baseline", str(root), "--batch-size", "0"]) == 2   # usage first, torch or not
    capsys.readouterr()
    assert main(["baseline", str(root)]) == 3
    err = capsys.readouterr().err
    assert err.strip() == ('error [dependency.missing] this baseline needs torch, which is not installed: '
                           'pip install "d3mkit[baselines]"')


def test_requirements_are_typed():
    with pytest.raises(ValueError):
        plugins.Requirement()
    with pytest.raises(TypeError):
        plugins.Baseline(run=len, requires=(42,))
    assert plugins.Baseline(run=len, requires="torch").requires == (plugins.Requirement("torch", "baselines"),)


@pytest.mark.slow
def test_a_third_party_benchmark_brings_its_own_card(toy, tmp_path, capsys):
    """The card is a field of the Benchmark record: the exports of the toy's task root carry
    its citation and RAI fields (no rai_missing warning), and its licence where the datasetDoc
    gives none."""
    import json
    assert main(["build", "toy", "--out", str(tmp_path / "out")]) == 0
    root = tmp_path / "out" / "toy"
    ddoc = root / "toy_dataset" / "datasetDoc.json"
    data = json.loads(ddoc.read_text())
    data["about"]["license"] = "unknown"
    ddoc.write_text(json.dumps(data))
    capsys.readouterr()
    assert main(["export", "croissant", str(root)]) == 0
    err = capsys.readouterr().err
    assert "rai_missing" not in err, err
    doc = json.loads((tmp_path / "out" / "toy.croissant.json").read_text())
    assert doc["citeAs"] == "Toy, T. A toy benchmark. 2026."
    assert doc["license"] == "toy-licence-1.0"
    assert doc["rai:dataBiases"] == "toy biases" and doc["rai:dataUseCases"] == "tests"
    assert plugins.card("toy").citation.startswith("Toy, T.")
    assert plugins.card("nothere") == plugins.Card() and plugins.card(None) == plugins.Card()


def test_own_benchmarks_carry_their_cards():
    from d3mkit.interop.croissant import RAI_REQUIRED
    for name in ("value", "value-detection", "visudo", "abstraction", "prism", "tabular"):
        card = plugins.card(name)
        assert card.citation and sorted(card.rai) == sorted(RAI_REQUIRED), name
