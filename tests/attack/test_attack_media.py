"""Adversarial suite, issue class 2 for media: images, IDX and PGN files are untrusted input
like CSV and JSON. Each reader has one owner (d3mkit.io.images.read_image, visudo.idx.read_idx,
value.games.pgn_positions) that refuses non-regular files unopened, caps the bytes, and
checks what a header promises (pixels, IDX dimensions, PGN games and half-moves) before
memory or time is spent; every failure is one line naming the file, exit 1, never a
traceback or a Pillow warning on stderr. The hostile files are made here, a few bytes each."""

from __future__ import annotations

import gzip
import io
import json
import os
import stat
import struct
import time
import zlib

import numpy as np
import pytest

from _attack_util import refused, run
from taskroot_helpers import prism_images
from d3mkit.core.errors import D3MKitError


# ----------------------------------------------------------------------------- the files
def _chunk(tag: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data))


def png_claiming(w: int, h: int, idat: bytes = b"\x00\x00") -> bytes:
    """A PNG whose header claims ``w`` x ``h`` gray pixels over a few bytes of data."""
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 0, 0, 0, 0))
            + _chunk(b"IDAT", zlib.compress(idat)) + _chunk(b"IEND", b""))


def real(fmt: str = "PNG", size=(40, 30)) -> bytes:
    from PIL import Image
    b = io.BytesIO()
    Image.new("RGB", size, (10, 200, 30)).save(b, fmt)
    return b.getvalue()


def _bad_crc() -> bytes:
    data = bytearray(real())
    i = data.index(b"IDAT") + 6
    data[i] ^= 0xFF                             # one flipped byte inside the pixel data
    return bytes(data)


def _nonregular(path, kind):
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "directory":
        path.mkdir()
    else:   # a character device made here (as root), else a symlink to the system's
        dev = "/dev/" + kind.split("_", 1)[1]
        try:
            os.mknod(path, stat.S_IFCHR | 0o644, os.stat(dev).st_rdev)
        except OSError:
            path.symlink_to(dev)


IMAGE_ATTACKS = {   # name: (bytes, expected code)
    "png header 10^5 x 10^5": (png_claiming(100_000, 100_000), "image.too_large"),
    "png header 2^31-1 x 1": (png_claiming(2 ** 31 - 1, 1), "image.too_large"),
    "png header 12000 x 10000 (between Pillow's warning and error)": (png_claiming(12_000, 10_000), "image.too_large"),
    "png header 1 x 2^31-1": (png_claiming(1, 2 ** 31 - 1), "image.too_large"),
    "png truncated in IDAT": (real()[: len(real()) // 2], "image.unreadable"),
    "png cut after the header": (real()[:40], "image.unreadable"),
    "png with a flipped data byte": (_bad_crc(), "image.unreadable"),
    "png header only, data too short": (png_claiming(64, 64), "image.unreadable"),
    "jpeg truncated": (real("JPEG")[:300], "image.unreadable"),
    "gif truncated": (real("GIF")[:20], "image.unreadable"),
    "bmp truncated": (real("BMP")[:70], "image.unreadable"),
    "empty file": (b"", "image.unreadable"),
    "text": (b"hypothesis,label\nnot an image\n", "image.unreadable"),
    "random bytes": (np.random.default_rng(0).bytes(2000), "image.unreadable"),
}


def _no_pillow_noise(capsys):
    out, err = capsys.readouterr()
    assert "Warning" not in err and "Traceback" not in err, err


@pytest.mark.parametrize("name", list(IMAGE_ATTACKS))
def test_read_image_refuses(tmp_path, capsys, name):
    from d3mkit.io.images import image_issue, read_image
    data, code = IMAGE_ATTACKS[name]
    p = tmp_path / "x.png"
    p.write_bytes(data)
    t = time.perf_counter()
    with pytest.raises(D3MKitError) as exc:
        read_image(p, "RGB", verify=True)
    assert time.perf_counter() - t < 30          # a hang catcher, not a benchmark
    issue = exc.value.issues[0]
    assert issue.code == code and issue.path == str(p) and exc.value.exit_code == 1, issue
    assert "\n" not in issue.format()
    assert image_issue(p).code == code
    _no_pillow_noise(capsys)


@pytest.mark.parametrize("kind", ["fifo", "directory", "dev_zero", "dev_null"])
def test_read_image_refuses_nonregular_unopened(tmp_path, capsys, kind):
    from d3mkit.io.images import read_image
    p = tmp_path / "x.png"
    _nonregular(p, kind)
    with pytest.raises(D3MKitError) as exc:
        read_image(p)
    assert exc.value.issues[0].code in ("file.not_regular", "file.is_directory")
    _no_pillow_noise(capsys)


def test_image_caps_come_from_limits(tmp_path, capsys, monkeypatch):
    from d3mkit.io.images import read_image
    p = tmp_path / "x.png"
    p.write_bytes(real(size=(40, 30)))
    assert read_image(p).size == (40, 30)
    monkeypatch.setenv("D3MKIT_MAX_IMAGE_PIXELS", "1199")
    with pytest.raises(D3MKitError) as exc:
        read_image(p)
    assert exc.value.issues[0].code == "image.too_large" and "40 x 30 = 1,200" in str(exc.value)
    monkeypatch.setenv("D3MKIT_MAX_IMAGE_PIXELS", "1200")
    assert read_image(p).size == (40, 30)
    monkeypatch.setenv("D3MKIT_MAX_IMAGE_BYTES", str(p.stat().st_size - 1))
    with pytest.raises(D3MKitError) as exc:
        read_image(p)
    assert exc.value.issues[0].code == "file.too_large" and "D3MKIT_MAX_IMAGE_BYTES" in str(exc.value)
    # raised above Pillow's own limit: Pillow's check follows ours and warns nothing on stderr
    monkeypatch.delenv("D3MKIT_MAX_IMAGE_BYTES")
    monkeypatch.setenv("D3MKIT_MAX_IMAGE_PIXELS", str(500_000_000))
    p.write_bytes(png_claiming(20_000, 20_000))
    with pytest.raises(D3MKitError) as exc:
        read_image(p)
    assert exc.value.issues[0].code == "image.unreadable"     # the data is not there
    from PIL import Image
    assert Image.MAX_IMAGE_PIXELS == 89_478_485 or Image.MAX_IMAGE_PIXELS is not None  # restored
    _no_pillow_noise(capsys)


# ------------------------------------------------------------------ through the commands
@pytest.fixture()
def prism(tmp_path):
    img = tmp_path / "imgs"
    return img, prism_images(img)


PRISM_MEDIA = {**{k: v for k, v in IMAGE_ATTACKS.items()},
               "fifo": (None, "file.not_regular"), "dev_zero": (None, "file.not_regular"),
               "directory": (None, "file.is_directory")}


@pytest.mark.slow
@pytest.mark.parametrize("name", list(PRISM_MEDIA))
def test_build_prism_names_the_bad_image(prism, tmp_path, capsys, name):
    img, recs = prism
    data, code = PRISM_MEDIA[name]
    if data is None:
        _nonregular(img / "bad.png", name)
    else:
        (img / "bad.png").write_bytes(data)
    recs[2]["image"] = "bad.png"
    m = tmp_path / "m.jsonl"
    m.write_text("".join(json.dumps(r) + "\n" for r in recs))
    text = refused(["build", "prism", "--manifest", m, "--images", img, "--out", tmp_path / "o", "--quiet"],
                   capsys, "prism.manifest.record")
    assert "line 3" in text and "bad.png" in text, text
    assert code in text or (os.path.islink(img / "bad.png") and "leaves the image directory" in text), text
    assert not (tmp_path / "o" / "prism_pvli").exists()


def test_abstraction_loader_names_a_bomb_in_a_task_root(tmp_path, capsys):
    from d3mkit.benchmarks.abstraction.cli import load_images
    from d3mkit.benchmarks.abstraction.protocol import Protocol
    from d3mkit.benchmarks.abstraction.cli import build_task_root
    from d3mkit.taskroot.model import TaskRoot
    root = build_task_root(tmp_path, Protocol(n_train=12, n_test=12), seed=0)
    task = TaskRoot.open(root)
    victim = sorted((task.dataset_dir / "media").iterdir())[3]
    victim.write_bytes(png_claiming(100_000, 100_000))
    with pytest.raises(D3MKitError) as exc:
        load_images(task)
    assert exc.value.issues[0].code == "image.too_large" and victim.name in str(exc.value)
    victim.unlink()
    os.mkfifo(victim)
    with pytest.raises(D3MKitError) as exc:
        load_images(task)
    assert exc.value.issues[0].code == "file.not_regular"
    _no_pillow_noise(capsys)


def test_value_and_prism_and_visudo_loaders_use_the_owner(tmp_path, capsys):
    from d3mkit.benchmarks.prism.baseline import load_images as prism_load
    from d3mkit.benchmarks.value.baseline import load_images as value_load
    from d3mkit.benchmarks.visudo.render import load_png
    good, bomb, cut = tmp_path / "g.png", tmp_path / "b.png", tmp_path / "c.jpg"
    good.write_bytes(real())
    bomb.write_bytes(png_claiming(100_000, 100_000))
    cut.write_bytes(real("JPEG")[:300])
    assert value_load([good], 16).shape == (1, 3, 16, 16) and prism_load([good], 16).shape == (1, 3, 16, 16)
    for load in (lambda p: value_load([good, p], 16), lambda p: prism_load([good, p], 16), load_png):
        for p, code in ((bomb, "image.too_large"), (cut, "image.unreadable"), (tmp_path / "none", "file.missing")):
            with pytest.raises(D3MKitError) as exc:
                load(p)
            assert exc.value.issues[0].code == code and str(p) in str(exc.value)
    _no_pillow_noise(capsys)


# --------------------------------------------------------------------------------- IDX
def _idx_head(code: int, dims) -> bytes:
    return bytes([0, 0, code, len(dims)]) + struct.pack(f">{len(dims)}I", *dims)


IDX_ATTACKS = {   # name: (bytes, code, gzip?)
    "dims promise 47 MB, file has 100 bytes": (_idx_head(8, (60000, 28, 28)) + b"\0" * 100, "idx.truncated", False),
    "same, gzip": (_idx_head(8, (60000, 28, 28)) + b"\0" * 100, "idx.truncated", True),
    "dims product 2^96": (_idx_head(8, (2 ** 32 - 1,) * 3), "idx.too_large", False),
    "dims product 2^96, gzip": (_idx_head(8, (2 ** 32 - 1,) * 3), "idx.too_large", True),
    "float64 4G elements": (_idx_head(0x0E, (2 ** 32 - 1,)), "idx.too_large", False),
    "255 dimensions of 2^32-1": (_idx_head(8, (2 ** 32 - 1,) * 255), "idx.too_large", False),
    "255 dimensions, header cut": (bytes([0, 0, 8, 255]) + b"\0\0\0\1" * 10, "idx.truncated", False),
    "gzip bomb under the cap: 2 GB promised, 1 MB of zeros": (_idx_head(8, (2 ** 31 - 100,)) + b"\0" * (1 << 20), "idx.truncated", True),
    "trailing megabyte": (_idx_head(8, (4,)) + b"\0" * (1 << 20), "idx.trailing", False),
    "zero dimensions": (bytes([0, 0, 8, 0]), "idx.magic", False),
}


@pytest.mark.parametrize("name", list(IDX_ATTACKS))
def test_read_idx_refuses_before_allocating(tmp_path, name):
    from d3mkit.benchmarks.visudo.idx import read_idx
    data, code, gz = IDX_ATTACKS[name]
    p = tmp_path / ("x.idx.gz" if gz else "x.idx")
    p.write_bytes(gzip.compress(data) if gz else data)
    t = time.perf_counter()
    with pytest.raises(D3MKitError) as exc:
        read_idx(p)
    assert time.perf_counter() - t < 30
    assert exc.value.issues[0].code == code and str(p) in str(exc.value), exc.value


def test_idx_cap_from_limits(tmp_path, monkeypatch):
    from d3mkit.benchmarks.visudo.idx import read_idx, write_idx
    p = tmp_path / "x.idx.gz"
    write_idx(p, np.zeros((10, 28, 28), np.uint8))
    assert read_idx(p).shape == (10, 28, 28)
    monkeypatch.setenv("D3MKIT_MAX_IDX_BYTES", str(10 * 28 * 28 - 1))
    with pytest.raises(D3MKitError) as exc:
        read_idx(p)
    assert exc.value.issues[0].code == "idx.too_large" and "D3MKIT_MAX_IDX_BYTES" in str(exc.value)


@pytest.mark.parametrize("kind", ["fifo", "dev_zero", "directory"])
def test_build_visudo_refuses_nonregular_idx(tmp_path, capsys, kind):
    from test_visudo_idx import _write_mnist_like
    from d3mkit.benchmarks.visudo import sources
    src = tmp_path / "src"
    _write_mnist_like(src / "kmnist", per_label=10)
    victim = src / "kmnist" / "t10k-images-idx3-ubyte.gz"
    victim.unlink()
    _nonregular(victim, kind)
    sources._load_idx_cached.cache_clear()
    args = ["build", "visudo", "--out", tmp_path / "out", "--sources", "kmnist", "--source-dir", src,
            "--n-train", "1", "--n-test", "1", "--n-valid", "1", "--quiet"]
    if kind == "directory":      # a directory is not the file: looked for elsewhere, then missing
        refused(args, capsys, "visudo.source_missing")
    else:
        refused(args, capsys, "file.not_regular", path=victim)
    sources._load_idx_cached.cache_clear()


def test_build_visudo_names_a_lying_idx_header(tmp_path, capsys):
    from test_visudo_idx import _write_mnist_like
    from d3mkit.benchmarks.visudo import sources
    src = tmp_path / "src"
    _write_mnist_like(src / "kmnist", per_label=10)
    victim = src / "kmnist" / "train-images-idx3-ubyte.gz"
    victim.write_bytes(gzip.compress(_idx_head(8, (60000, 28, 28)) + b"\0" * 784))
    sources._load_idx_cached.cache_clear()
    refused(["build", "visudo", "--out", tmp_path / "out", "--sources", "kmnist", "--source-dir", src,
             "--n-train", "1", "--n-test", "1", "--n-valid", "1", "--quiet"],
            capsys, "idx.truncated", path=victim)
    sources._load_idx_cached.cache_clear()


# --------------------------------------------------------------------------------- PGN
PGN_ATTACKS = {   # name: (text, code, env)
    "a game of 12,000 half-moves": ('[Event "x"]\n\n' + "1. Nf3 Nf6 2. Ng1 Ng8 " * 3000 + "*\n",
                                    "pgn.too_large", {}),
    "a game over a lowered ply cap": ("1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 *\n", "pgn.too_large", {"D3MKIT_MAX_PGN_PLIES": "5"}),
    "a 2 MB line": ("1. e4 " + " " * (2 << 20) + "*\n", "pgn.too_large", {}),
    "more games than the cap": ("1. e4 *\n\n" * 30, "pgn.too_large", {"D3MKIT_MAX_PGN_GAMES": "10"}),
    "more positions than the cap": ("1. e4 e5 *\n\n" * 30, "pgn.too_large", {"D3MKIT_MAX_PGN_POSITIONS": "40"}),
    "unbalanced variation": ("1. e4 ) ( ( e5 *\n", "pgn.game", {}),
    "illegal move": ("1. e4 e4 *\n", "pgn.game", {}),
    "binary garbage": (np.random.default_rng(3).bytes(4000).decode("latin-1"), None, {}),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", list(PGN_ATTACKS))
def test_build_value_pgn_attacks(tmp_path, capsys, monkeypatch, name):
    text, code, env = PGN_ATTACKS[name]
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    p = tmp_path / "g.pgn"
    p.write_text(text, encoding="latin-1")
    t = time.perf_counter()
    argv = ["build", "value", "--out", tmp_path / "o", "--seed", "3", "--quiet", "--n-train", "2",
            "--n-test", "1", "--size", "64", "--workers", "1", "--pgn", p]
    code_, out, err = run(argv, capsys)
    assert time.perf_counter() - t < 60
    assert code_ == 1 and str(p) in err and "[pgn." in err, err
    if code is not None:
        assert f"[{code}]" in err, err
    assert len(err.strip().splitlines()) == 1, err


@pytest.mark.parametrize("kind", ["fifo", "dev_zero"])
def test_build_value_refuses_nonregular_pgn(tmp_path, capsys, kind):
    p = tmp_path / "g.pgn"
    _nonregular(p, kind)
    refused(["build", "value", "--out", tmp_path / "o", "--quiet", "--n-train", "2", "--n-test", "1",
             "--size", "64", "--workers", "1", "--pgn", p], capsys, "file.not_regular", path=p)


def test_max_games_reads_past_nothing(tmp_path, monkeypatch):
    from d3mkit.benchmarks.value import games
    monkeypatch.setenv("D3MKIT_MAX_PGN_GAMES", "10")
    p = tmp_path / "g.pgn"
    p.write_text("1. e4 e5 *\n\n" * 30)
    assert len(list(games.pgn_positions(p, max_games=20))) == 40     # asked for: no cap error
