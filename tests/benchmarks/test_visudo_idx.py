"""ViSudo-PC: the IDX reader and the IDX-backed sources, on tiny files the tests write."""

import gzip

import numpy as np
import pytest

from d3mkit.benchmarks.visudo.idx import idx_bytes, read_idx, write_idx
from d3mkit.benchmarks.visudo.sources import load_source
from d3mkit.cli import main
from d3mkit.core.errors import D3MKitError


@pytest.mark.parametrize("dtype", [np.uint8, np.int8, np.int16, np.int32, np.float32, np.float64])
@pytest.mark.parametrize("name", ["a.idx", "a.idx.gz"])
def test_round_trip(tmp_path, dtype, name):
    arr = (np.arange(24).reshape(2, 3, 4) - 5).astype(dtype)
    if dtype == np.uint8:
        arr = np.arange(24, dtype=np.uint8).reshape(2, 3, 4)
    write_idx(tmp_path / name, arr)
    back = read_idx(tmp_path / name)
    assert back.dtype == np.dtype(dtype) and np.array_equal(back, arr)


def _err(path) -> D3MKitError:
    with pytest.raises(D3MKitError) as exc:
        read_idx(path)
    assert exc.value.exit_code == 1 and str(path) in str(exc.value)
    return exc.value


def test_bad_magic(tmp_path):
    p = tmp_path / "x.idx"
    p.write_bytes(b"\x01\x02\x08\x01" + b"\x00\x00\x00\x01" + b"\x05")
    e = _err(p)
    assert e.issues[0].code == "idx.magic" and "magic number" in str(e)
    p.write_bytes(b"\x00\x00\x07\x01\x00\x00\x00\x01\x05")          # unknown type code
    assert _err(p).issues[0].code == "idx.magic"
    p.write_bytes(b"PK\x03\x04 not an idx file at all")
    assert _err(p).issues[0].code == "idx.magic"


def test_truncated_and_trailing(tmp_path):
    good = idx_bytes(np.arange(12, dtype=np.uint8).reshape(3, 4))
    p = tmp_path / "t.idx"
    p.write_bytes(good[:-3])
    e = _err(p)
    assert e.issues[0].code == "idx.truncated" and "needs 12 bytes" in str(e) and "has 9" in str(e)
    p.write_bytes(good[:6])                                   # header cut
    assert _err(p).issues[0].code == "idx.truncated"
    p.write_bytes(b"\x00\x00")
    assert _err(p).issues[0].code == "idx.truncated"
    p.write_bytes(good + b"\x00\x00")
    assert _err(p).issues[0].code == "idx.trailing"
    gz = tmp_path / "t.idx.gz"
    gz.write_bytes(gzip.compress(good[:-1]))                  # truncated inside a valid gzip
    assert _err(gz).issues[0].code == "idx.truncated"
    gz.write_bytes(gzip.compress(good)[:-6])                  # broken gzip stream
    assert _err(gz).issues[0].code == "idx.gzip"


def _write_mnist_like(d, prefix="", n_labels=10, per_label=4, gz=True, label_offset=0):
    d.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    names = {"train": "train", "test": "t10k" if not prefix else "test"}
    for part, k in (("train", per_label), ("test", 2)):
        labels = np.repeat(np.arange(n_labels, dtype=np.uint8) + label_offset, k)
        imgs = rng.integers(0, 256, size=(len(labels), 28, 28), dtype=np.uint8)
        imgs[:, 0, 5] = 255                                    # a mark at row 0, column 5
        imgs[:, 5, 0] = 0
        suffix = ".gz" if gz else ""
        write_idx(d / f"{prefix}{names[part]}-images-idx3-ubyte{suffix}", imgs)
        write_idx(d / f"{prefix}{names[part]}-labels-idx1-ubyte{suffix}", labels)


def test_idx_sources_load(tmp_path):
    _write_mnist_like(tmp_path / "mnist")
    _write_mnist_like(tmp_path / "fmnist", gz=False)
    m = load_source("mnist", tmp_path)
    assert m.images.shape == (60, 28, 28) and m.label_names == tuple("0123456789")
    assert m.image_ids[0] == "mnist:train:0" and m.image_ids[-1] == "mnist:test:19"
    f = load_source("fmnist", tmp_path)
    assert f.label_names[1] == "trouser" and len(f) == 60


def test_emnist_letters_only_and_upright(tmp_path):
    _write_mnist_like(tmp_path / "emnist", prefix="emnist-bymerge-", n_labels=47, per_label=3)
    e = load_source("emnist", tmp_path)
    assert len(e.label_names) == 37 and e.label_names[0] == "A" and e.label_names[-1] == "t"
    assert len(e) == 37 * 5 and e.labels.min() == 0 and e.labels.max() == 36   # digits 0-9 dropped
    assert (e.images[:, 5, 0] == 255).all()                  # transposed back to upright
    assert e.image_ids[0] == "emnist:train:30"                # ids keep the original position


def test_missing_and_corrupt_files_via_cli(tmp_path, capsys):
    src = tmp_path / "src"
    out = tmp_path / "out"
    assert main(["build", "visudo", "--out", str(out), "--sources", "kmnist", "--source-dir", str(src),
                 "--quiet"]) == 1
    assert "not found" in capsys.readouterr().err
    _write_mnist_like(src / "kmnist", per_label=10)          # 12 images per label: 4 x (1 + 1 + 1)
    args = ["build", "visudo", "--out", str(out), "--sources", "kmnist", "--source-dir", str(src),
            "--n-train", "1", "--n-test", "1", "--n-valid", "1", "--quiet"]
    assert main(args) == 0
    assert main(["validate", str(out / "visudo_basic_kmnist_d4_n1_o0_s0")]) == 0
    (src / "kmnist" / "t10k-labels-idx1-ubyte.gz").write_bytes(gzip.compress(b"\x00\x00\x08\x01\x00\x00\x00\x09\x01"))
    from d3mkit.benchmarks.visudo import sources
    sources._load_idx_cached.cache_clear()
    capsys.readouterr()
    assert main([*args, "--force"]) == 1
    assert "truncated" in capsys.readouterr().err


def test_download_verifies_md5_offline(tmp_path):
    """--download code path with file:// URLs (no network): files are fetched, checked
    against their MD5 and read; a wrong checksum is an exit-1 error leaving no file."""
    import hashlib
    import zipfile

    from d3mkit.benchmarks.visudo.sources import IdxSpec, _mnist_files, download_source, load_idx_source
    pub = tmp_path / "publisher"
    _write_mnist_like(pub, per_label=3)
    md5 = tuple(hashlib.md5((pub / f"{n}.gz").read_bytes()).hexdigest() for n in
                ("train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte",
                 "t10k-labels-idx1-ubyte"))
    sp = IdxSpec("mnist", "tiny", _mnist_files(md5s=md5), ("file:///nonexistent/", pub.as_uri() + "/"),
                 tuple("0123456789"))
    src = load_idx_source(sp, tmp_path / "dl", download=True)      # first mirror fails, second works
    assert len(src) == 50 and (tmp_path / "dl" / "mnist" / "train-images-idx3-ubyte.gz").is_file()
    bad = IdxSpec("mnist", "tiny", _mnist_files(md5s=("0" * 32,) * 4), (pub.as_uri() + "/",), tuple("0123456789"))
    with pytest.raises(D3MKitError) as exc:
        download_source(bad, tmp_path / "dl2")
    assert exc.value.exit_code == 1 and "MD5 mismatch" in str(exc.value)
    assert not any(p.is_file() for p in (tmp_path / "dl2").rglob("*"))
    # EMNIST comes as one zip with gzip/ members
    _write_mnist_like(tmp_path / "em", prefix="emnist-bymerge-", n_labels=47, per_label=2)
    with zipfile.ZipFile(pub / "gzip.zip", "w") as z:
        for f in sorted((tmp_path / "em").iterdir()):
            z.write(f, "gzip/" + f.name)
    zmd5 = hashlib.md5((pub / "gzip.zip").read_bytes()).hexdigest()
    from d3mkit.benchmarks.visudo.sources import emnist_spec
    em = emnist_spec()
    em = IdxSpec(em.name, em.title, em.files, (), em.label_names, keep=em.keep, transpose=True,
                 archive=((pub / "gzip.zip").as_uri(), zmd5, "gzip/"))
    e = load_idx_source(em, tmp_path / "dl3", download=True)
    assert len(e) == 37 * 4
