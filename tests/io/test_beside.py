"""d3mkit.io.beside: the work is always joined at the block's end, its exception raised there,
the block's own exception first; a failing learningData writer leaves nothing written."""

import time

import pytest

from d3mkit.io.beside import beside


def test_result_and_exception_of_the_work():
    with beside(lambda a, b=0: a + b, 2, b=3) as job:
        pass
    assert job.result() == 5

    def boom():
        raise ValueError("work failed")
    with pytest.raises(ValueError, match="work failed"):
        with beside(boom):
            pass


def test_block_exception_wins_and_work_is_joined_first():
    done = []

    def slow():
        time.sleep(0.2)
        done.append(True)
        raise ValueError("work failed too")
    with pytest.raises(KeyError):
        with beside(slow):
            raise KeyError("block failed")
    assert done == [True]          # the work had finished before the block's exception left


def test_failing_learning_data_writer_writes_nothing(tmp_path, monkeypatch):
    import d3mkit
    import d3mkit.importing.scan as scan
    from d3mkit.core.errors import D3MKitError, error
    src = tmp_path / "t.csv"
    src.write_text("x,y\n" + "".join(f"{i},{'ab'[i % 2]}\n" for i in range(30)))

    def broken(*args):
        raise D3MKitError(error("file.unwritable", "", "disk full", str(src)))
    monkeypatch.setattr(scan, "write_indexed", broken)
    with pytest.raises(D3MKitError, match="disk full"):
        d3mkit.import_table(src, target="y", out=tmp_path / "o")
    assert not any((tmp_path / "o").iterdir())


def test_ahead_reads_one_item_ahead_and_joins_on_early_exit():
    from d3mkit.io.beside import ahead
    taken = []

    def reader():
        for i in range(10):
            taken.append(i)
            yield i
    with ahead(reader()) as items:
        for i in items:
            if i == 3:
                break
    assert taken == [0, 1, 2, 3, 4]        # the item after the last one used was read, no more


def test_ahead_raises_the_readers_exception_where_its_item_is_taken():
    from d3mkit.io.beside import ahead

    def reader():
        yield 1
        raise ValueError("bad chunk")
    got = []
    with pytest.raises(ValueError, match="bad chunk"):
        with ahead(reader()) as items:
            for i in items:
                got.append(i)
    assert got == [1]
