"""d3mkit.io.executor: results in input order on one process, a local pool and a real Dask
``LocalCluster``; builds byte-identical whatever runs them."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from d3mkit.cli import main
from d3mkit.core.errors import UsageError
from d3mkit.io.executor import make_executor


def _square(x):
    return x * x


def _fail_on_three(x):
    if x == 3:
        raise ValueError("three")
    return x


def test_map_keeps_input_order_and_raises():
    items = list(range(50))
    with make_executor(workers=1) as one, make_executor(workers=2) as two:
        assert one.map(_square, items) == two.map(_square, items, chunksize=3) == [x * x for x in items]
        assert two.map(_square, []) == []
        with pytest.raises(ValueError, match="three"):
            two.map(_fail_on_three, items)


def test_from_args_takes_a_command_default_unless_an_option_is_given(monkeypatch):
    from types import SimpleNamespace

    import d3mkit.io.executor as executor
    with executor.from_args(SimpleNamespace(workers=None, scheduler=None), default_workers=1) as ex:
        assert ex.kind == "serial"
    with executor.from_args(SimpleNamespace(workers=2, scheduler=None), default_workers=1) as ex:
        assert ex.kind == "local" and ex.workers == 2
    asked = []
    monkeypatch.setattr(executor, "make_executor", lambda w, s: asked.append((w, s)))
    executor.from_args(SimpleNamespace(workers=None, scheduler="tcp://h:8786"), default_workers=1)
    assert asked == [(None, "tcp://h:8786")]       # --scheduler alone: the default is not "both"


def test_usage_errors():
    with pytest.raises(UsageError, match="at least 1"):
        make_executor(workers=0)
    with pytest.raises(UsageError, match="not both"):
        make_executor(workers=2, scheduler="tcp://127.0.0.1:1")


def _tree(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def _build_value(out: Path, *extra) -> dict[str, str]:
    assert main(["build", "value", "--out", str(out), "--seed", "7", "--quiet", "--n-train", "10",
                 "--n-test", "6", "--size", "48", "--random-games", "2", "--max-plies", "30",
                 *extra]) == 0
    return _tree(out)


@pytest.mark.slow
def test_value_build_same_bytes_on_one_process_a_pool_and_a_dask_cluster(tmp_path, capsys):
    distributed = pytest.importorskip("distributed")
    serial = _build_value(tmp_path / "one", "--workers", "1")
    assert sum(k.endswith(".jpg") for k in serial) == 16
    assert _build_value(tmp_path / "two", "--workers", "2") == serial
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        assert _build_value(tmp_path / "dask", "--scheduler", cluster.scheduler_address) == serial
        assert "run_chunk" in cluster.scheduler.task_prefixes      # the cluster did the rendering
    with make_executor(workers=2) as pool, \
            distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                     dashboard_address=None) as cluster, \
            make_executor(scheduler=cluster.scheduler_address) as dask:
        items = list(range(40))
        assert dask.map(_square, items) == pool.map(_square, items)


def _build_abstraction(out: Path, *extra) -> dict[str, str]:
    assert main(["build", "abstraction", "--out", str(out), "--seed", "2", "--quiet", "--transform",
                 "mirror", "--transformed", "3", "--n-train", "300", "--noise", "1", *extra]) == 0
    return _tree(out)


@pytest.mark.slow
def test_abstraction_build_same_bytes_on_one_process_a_pool_and_a_dask_cluster(tmp_path):
    distributed = pytest.importorskip("distributed")
    serial = _build_abstraction(tmp_path / "one", "--workers", "1")
    assert sum(k.endswith(".png") for k in serial) >= 600
    assert _build_abstraction(tmp_path / "two", "--workers", "2") == serial
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        assert _build_abstraction(tmp_path / "dask", "--scheduler", cluster.scheduler_address) == serial
        assert "run_chunk" in cluster.scheduler.task_prefixes      # the cluster wrote the files


def _build_visudo(out: Path, *extra) -> dict[str, str]:
    assert main(["build", "visudo", "--out", str(out), "--seed", "5", "--quiet", "--sources", "digits",
                 "--dimension", "4", "--n-train", "3", "--n-test", "2", "--n-valid", "2",
                 "--split", "0-1", *extra]) == 0
    return _tree(out)


@pytest.mark.slow
def test_visudo_build_same_bytes_on_one_process_a_pool_and_a_dask_cluster(tmp_path, monkeypatch):
    distributed = pytest.importorskip("distributed")
    serial = _build_visudo(tmp_path / "one", "--workers", "1")
    assert sum(k.endswith(".png") for k in serial) == 2 * (14 + 10 * 16)   # 2 splits: grids + cells
    assert _build_visudo(tmp_path / "two", "--workers", "2") == serial
    import d3mkit.benchmarks.visudo.cli as vcli
    monkeypatch.setattr(vcli, "BATCH_BYTES", 5 * 16 * 28 * 28)    # batches of 5 puzzles: same bytes
    assert _build_visudo(tmp_path / "batched", "--workers", "2") == serial
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        assert _build_visudo(tmp_path / "dask", "--scheduler", cluster.scheduler_address) == serial
        assert "run_chunk" in cluster.scheduler.task_prefixes      # the cluster wrote the files


def _prism_corpus(tmp_path: Path) -> Path:
    """Premise images in every case the build treats apart: PNG and JPEG (copied), a PNG
    named .jpg (copied), GIF and BMP (converted), one image used twice, one unreadable."""
    import json

    from PIL import Image
    img = tmp_path / "corpus" / "img"
    img.mkdir(parents=True)
    files = []
    for i in range(14):
        name, fmt = [("p{}.png", "PNG"), ("p{}.jpg", "JPEG"), ("p{}.gif", "GIF"), ("p{}.bmp", "BMP"),
                     ("p{}.jpg", "PNG")][i % 5]
        name = name.format(i)
        Image.new("RGB", (10, 8), (i * 15, 90, 200 - i * 10)).save(img / name, format=fmt)
        files.append(name)
    (img / "broken.png").write_bytes(b"\x89PNG\r\n\x1a\n not really")
    files += [files[0], "broken.png"]
    recs = [{"hypothesis": f"a cup holds tea {i}", "image": f"img/{f}", "label": ("allow", "prevent")[i % 2],
             "rationale": f"the cup is cracked {i}"} for i, f in enumerate(files)]
    m = tmp_path / "corpus" / "m.jsonl"
    m.write_text("".join(json.dumps(r) + "\n" for r in recs), encoding="utf-8")
    return m


def _build_prism(m: Path, out: Path, *extra) -> dict[str, str]:
    assert main(["build", "prism", "--manifest", str(m), "--out", str(out), "--seed", "1", "--quiet",
                 "--task", "pvlr", "--skip-invalid", *extra]) == 0
    return _tree(out)


@pytest.mark.slow
def test_prism_build_same_bytes_on_one_process_a_pool_and_a_dask_cluster(tmp_path):
    distributed = pytest.importorskip("distributed")
    m = _prism_corpus(tmp_path)
    serial = _build_prism(m, tmp_path / "one", "--workers", "1")
    media = sorted(k.rsplit("/", 1)[1] for k in serial if "/media/" in k)
    assert len(media) == 14 and sum(k.endswith(".png") for k in media) == 9   # 3 png, 3 gif and 3 bmp converted
    assert "broken" not in " ".join(serial)
    assert _build_prism(m, tmp_path / "two", "--workers", "2") == serial
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        assert _build_prism(m, tmp_path / "dask", "--scheduler", cluster.scheduler_address) == serial
        assert "run_chunk" in cluster.scheduler.task_prefixes      # the cluster checked and copied


def test_tabular_build_checks_the_options_and_needs_no_executor(tmp_path, capsys):
    assert main(["build", "tabular", "--out", str(tmp_path / "a"), "--workers", "1"]) == 0
    assert main(["build", "tabular", "--out", str(tmp_path / "b"), "--workers", "2"]) == 0
    assert _tree(tmp_path / "a") == _tree(tmp_path / "b")
    assert main(["build", "tabular", "--out", str(tmp_path / "c"), "--workers", "0"]) == 2
    assert main(["build", "tabular", "--out", str(tmp_path / "c"), "--workers", "2",
                 "--scheduler", "tcp://127.0.0.1:1"]) == 2
    assert "not both" in capsys.readouterr().err and not (tmp_path / "c").exists()
