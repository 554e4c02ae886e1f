"""d3mkit.executor: results in input order on one process, a local pool and a real Dask
``LocalCluster``; builds byte-identical whatever runs them."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from d3mkit.cli import main
from d3mkit.errors import UsageError
from d3mkit.executor import make_executor


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


def test_abstraction_build_same_bytes_on_one_process_a_pool_and_a_dask_cluster(tmp_path):
    distributed = pytest.importorskip("distributed")
    serial = _build_abstraction(tmp_path / "one", "--workers", "1")
    assert sum(k.endswith(".png") for k in serial) >= 600
    assert _build_abstraction(tmp_path / "two", "--workers", "2") == serial
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        assert _build_abstraction(tmp_path / "dask", "--scheduler", cluster.scheduler_address) == serial
        assert "run_chunk" in cluster.scheduler.task_prefixes      # the cluster wrote the files
