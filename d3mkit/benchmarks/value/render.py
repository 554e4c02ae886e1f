"""VALUE-synthetic: a Pillow renderer of chess boards seen from a random camera.

This is **not** the paper's Blender scene. It is a cheap stand-in with the same geometry
rules: a board on a table, a pinhole camera at a fixed distance from the board centre and
aimed at it, random pan (azimuth) and tilt (elevation) limited so that corner a1 is always
the nearest to the camera, perspective projection, a distinct flat sprite with height for
each of the 12 piece kinds standing upright on its square (drawn far to near, so near
pieces occlude far ones), small random offsets of pieces within their squares, and
lighting/colour jitter. Images are 512x512 RGB by default; every piece gets a bounding
box (the extent of its drawn sprite, clipped to the image).

World coordinates: the board lies in z = 0 with x along the files (a = -4 .. h = +4) and
y along the ranks (rank 1 = -4 .. rank 8 = +4); one square is one unit.

Each image's randomness comes from ``numpy.random.default_rng([seed, index])``, so a
dataset renders to the same bytes whatever the number of worker processes.

>>> import numpy as np
>>> img, boxes, params = render_board("8/8/8/8/8/8/8/k6K", np.random.default_rng(0), size=128)
>>> img.size, [b[0] for b in boxes]      # drawn far to near: a1 is nearest
((128, 128), ['K', 'k'])
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from d3mkit.benchmarks.value.boards import fen_to_symbols

DISTANCE = 13.0                     # camera distance from the board centre, in squares
AZIMUTH = (200.0, 250.0)            # degrees; 225 looks along the a1-h8 diagonal from a1's side
ELEVATION = (38.0, 68.0)            # degrees above the table
OFFSET = 0.12                       # max piece offset within its square (squares)
HEIGHT = {"p": 0.9, "n": 1.1, "b": 1.25, "r": 1.0, "q": 1.45, "k": 1.65}

# Sprites in local coordinates: u across (squares, 0 = piece axis), v up (0 = base, 1 = top).
_BASE = [(-0.34, 0.0), (0.34, 0.0), (0.30, 0.10), (-0.30, 0.10)]
SPRITES = {
    "p": [("poly", _BASE), ("poly", [(-0.24, 0.08), (0.24, 0.08), (0.09, 0.55), (-0.09, 0.55)]),
          ("circle", (0.0, 0.76, 0.17))],
    "r": [("poly", _BASE), ("poly", [(-0.25, 0.08), (0.25, 0.08), (0.21, 0.78), (-0.21, 0.78)]),
          ("poly", [(-0.28, 0.74), (0.28, 0.74), (0.28, 1.0), (0.17, 1.0), (0.17, 0.9), (0.06, 0.9),
                    (0.06, 1.0), (-0.06, 1.0), (-0.06, 0.9), (-0.17, 0.9), (-0.17, 1.0),
                    (-0.28, 1.0)])],
    "n": [("poly", _BASE), ("poly", [(-0.24, 0.08), (0.26, 0.08), (0.22, 0.45), (0.30, 0.62),
                                     (0.10, 0.98), (-0.02, 1.0), (-0.12, 0.90), (-0.34, 0.68),
                                     (-0.30, 0.56), (-0.10, 0.60), (-0.20, 0.36)])],
    "b": [("poly", _BASE), ("poly", [(-0.22, 0.08), (0.22, 0.08), (0.08, 0.45), (-0.08, 0.45)]),
          ("poly", [(0.0, 0.92), (0.17, 0.72), (0.12, 0.50), (-0.12, 0.50), (-0.17, 0.72)]),
          ("circle", (0.0, 0.95, 0.06))],
    "q": [("poly", _BASE), ("poly", [(-0.24, 0.08), (0.24, 0.08), (0.09, 0.60), (-0.09, 0.60)]),
          ("poly", [(-0.11, 0.58), (0.11, 0.58), (0.27, 0.95), (0.16, 0.82), (0.10, 1.0),
                    (0.03, 0.84), (-0.03, 0.84), (-0.10, 1.0), (-0.16, 0.82), (-0.27, 0.95)])],
    "k": [("poly", _BASE), ("poly", [(-0.25, 0.08), (0.25, 0.08), (0.10, 0.62), (-0.10, 0.62)]),
          ("poly", [(-0.12, 0.60), (0.12, 0.60), (0.20, 0.80), (-0.20, 0.80)]),
          ("poly", [(-0.035, 0.80), (0.035, 0.80), (0.035, 0.88), (0.10, 0.88), (0.10, 0.93),
                    (0.035, 0.93), (0.035, 1.0), (-0.035, 1.0), (-0.035, 0.93), (-0.10, 0.93),
                    (-0.10, 0.88), (-0.035, 0.88)])],
}


def _norm(v: np.ndarray) -> float:
    """Euclidean length without BLAS (``np.linalg.norm`` calls ``dot``, whose rounding
    depends on the CPU's kernel), so a rendering is the same on every machine."""
    return math.sqrt(sum(float(x) * float(x) for x in v))


class Camera:
    """Pinhole camera at ``DISTANCE`` from the origin, aimed at it, no roll."""

    def __init__(self, azimuth_deg: float, elevation_deg: float, size: int, fov_scale: float = 1.0):
        az, el = math.radians(azimuth_deg), math.radians(elevation_deg)
        self.pos = DISTANCE * np.array([math.cos(el) * math.cos(az), math.cos(el) * math.sin(az),
                                        math.sin(el)])
        f = -self.pos / _norm(self.pos)
        r = np.cross(f, [0.0, 0.0, 1.0])
        r /= _norm(r)
        u = np.cross(r, f)
        self.rot = np.stack([r, u, f])             # rows: right, up, forward
        self.size = size
        # focal length (pixels) so the board's half-diagonal spans ~44% of the image
        self.focal = fov_scale * 0.44 * size * DISTANCE / (4.0 * math.sqrt(2.0))
        self.elevation = el

    def project(self, pts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(M, 3)`` world points -> ``(M, 2)`` pixel coordinates and ``(M,)`` depths."""
        d = pts - self.pos
        # elementwise, not ``d @ self.rot.T``: BLAS picks its kernel by CPU (AVX2, AVX-512, ...)
        # and the last bits of a product then differ between machines, which moved pieces'
        # drawing order and pixels; these ufuncs round the same everywhere (IEEE 754)
        cam = d[:, :1] * self.rot[:, 0] + d[:, 1:2] * self.rot[:, 1] + d[:, 2:3] * self.rot[:, 2]
        z = cam[:, 2]
        half = self.size / 2.0
        xy = np.empty((len(pts), 2))
        xy[:, 0] = half + self.focal * cam[:, 0] / z
        xy[:, 1] = half - self.focal * cam[:, 1] / z
        return xy, z


def _jitter(rng, rgb, amount, light, tint):
    c = np.asarray(rgb, float) * light * tint + rng.uniform(-amount, amount, 3)
    return tuple(int(v) for v in np.clip(c, 0, 255))


def render_board(fen: str, rng: np.random.Generator, size: int = 512):
    """Render one board. Returns ``(PIL.Image, boxes, params)`` where boxes are
    ``(symbol, square_index, x_min, y_min, x_max, y_max)`` in pixels (drawing order) and
    params the camera and lighting drawn for this image."""
    from PIL import Image, ImageDraw

    symbols = fen_to_symbols(fen)
    az = float(rng.uniform(*AZIMUTH))
    el = float(rng.uniform(*ELEVATION))
    zoom = float(rng.uniform(0.92, 1.06))
    cam = Camera(az, el, size, zoom)
    light = float(rng.uniform(0.72, 1.15))
    tint = rng.uniform(0.92, 1.08, 3)

    floor = _jitter(rng, (96, 92, 88), 12, light, tint)
    img = Image.new("RGB", (size, size), floor)
    draw = ImageDraw.Draw(img)

    # table, board frame, squares: one projection of all their corners
    t, fr = 7.5, 4.45
    quads = np.array([[-t, -t, -0.02], [t, -t, -0.02], [t, t, -0.02], [-t, t, -0.02],
                      [-fr, -fr, -0.01], [fr, -fr, -0.01], [fr, fr, -0.01], [-fr, fr, -0.01]])
    g = np.arange(9) - 4.0
    gx, gy = np.meshgrid(g, g)                  # gy: rank lines from rank-1 edge (-4) upwards
    grid = np.column_stack([gx.ravel(), gy.ravel(), np.zeros(81)])
    xy, _ = cam.project(np.vstack([quads, grid]))
    table_c = _jitter(rng, (120, 78, 44), 14, light, tint)
    frame_c = _jitter(rng, (70, 44, 26), 10, light, tint)
    draw.polygon([tuple(p) for p in xy[0:4]], fill=table_c)
    draw.polygon([tuple(p) for p in xy[4:8]], fill=frame_c)
    gxy = xy[8:].reshape(9, 9, 2)               # [rank line, file line]
    light_sq = _jitter(rng, (232, 214, 180), 8, light, tint)
    dark_sq = _jitter(rng, (150, 104, 70), 8, light, tint)
    for rk in range(8):                         # rk = 0 is rank 1
        for fl in range(8):
            poly = [tuple(gxy[rk, fl]), tuple(gxy[rk, fl + 1]), tuple(gxy[rk + 1, fl + 1]),
                    tuple(gxy[rk + 1, fl])]
            draw.polygon(poly, fill=dark_sq if (rk + fl) % 2 == 0 else light_sq)

    # pieces: positions with offsets, projected bases and tops, drawn far to near
    occ = [i for i, ch in enumerate(symbols) if ch != "x"]
    boxes = []
    params = {"azimuth": round(az, 4), "elevation": round(el, 4), "zoom": round(zoom, 4),
              "light": round(light, 4)}
    if not occ:
        return img, boxes, params
    occ_a = np.array(occ)
    off = rng.uniform(-OFFSET, OFFSET, (len(occ), 2))
    px = (occ_a % 8) - 3.5 + off[:, 0]
    py = 3.5 - (occ_a // 8) + off[:, 1]
    heights = np.array([HEIGHT[symbols[i].lower()] for i in occ]) * rng.uniform(0.97, 1.03, len(occ))
    base = np.column_stack([px, py, np.zeros(len(occ))])
    top = np.column_stack([px, py, heights])
    bxy, bz = cam.project(base)
    txy, _ = cam.project(top)
    white_c = _jitter(rng, (236, 226, 204), 10, light, tint)
    black_c = _jitter(rng, (46, 38, 34), 6, light, tint)
    white_edge = tuple(max(0, v - 70) for v in white_c)
    black_edge = tuple(min(255, v + 45) for v in black_c)
    shadow_c = tuple(int(v * 0.55) for v in dark_sq)
    sin_el = math.sin(math.radians(el))
    scale = cam.focal / bz                      # pixels per square at each base
    for j in np.argsort(-bz, kind="stable"):    # shadows first, far to near
        s = scale[j] * 0.33
        cx, cy = bxy[j, 0] + 0.10 * scale[j], bxy[j, 1] - 0.02 * scale[j]
        draw.ellipse([cx - s, cy - s * sin_el, cx + s, cy + s * sin_el], fill=shadow_c)
    for j in np.argsort(-bz, kind="stable"):
        i = occ[j]
        ch = symbols[i]
        white = ch.isupper()
        fill, edge = (white_c, white_edge) if white else (black_c, black_edge)
        b, tp, s = bxy[j], txy[j], scale[j]
        vx, vy = tp[0] - b[0], tp[1] - b[1]
        lo = [math.inf, math.inf]
        hi = [-math.inf, -math.inf]
        rx, ry = 0.34 * s, 0.34 * s * sin_el
        draw.ellipse([b[0] - rx, b[1] - ry, b[0] + rx, b[1] + ry], fill=fill, outline=edge)
        lo = [b[0] - rx, b[1] - ry]
        hi = [b[0] + rx, b[1] + ry]
        for kind, shape in SPRITES[ch.lower()]:
            if kind == "poly":
                pts = [(b[0] + v * vx + u * s, b[1] + v * vy) for u, v in shape]
                draw.polygon(pts, fill=fill, outline=edge)
                xs = [p[0] for p in pts]
                ys = [p[1] for p in pts]
                lo = [min(lo[0], min(xs)), min(lo[1], min(ys))]
                hi = [max(hi[0], max(xs)), max(hi[1], max(ys))]
            else:
                u, v, r = shape
                cx, cy, rr = b[0] + v * vx + u * s, b[1] + v * vy, r * s
                draw.ellipse([cx - rr, cy - rr, cx + rr, cy + rr], fill=fill, outline=edge)
                lo = [min(lo[0], cx - rr), min(lo[1], cy - rr)]
                hi = [max(hi[0], cx + rr), max(hi[1], cy + rr)]
        x0, y0 = max(0.0, lo[0]), max(0.0, lo[1])
        x1, y1 = min(float(size), hi[0]), min(float(size), hi[1])
        if x1 > x0 and y1 > y0:
            boxes.append((ch, i, round(x0, 1), round(y0, 1), round(x1, 1), round(y1, 1)))
    return img, boxes, params


def image_rng(seed: int, index: int) -> np.random.Generator:
    """The Generator of image ``index`` of a dataset rendered with ``seed``."""
    return np.random.default_rng([int(seed), int(index)])


def _render_one(job):
    fen, path, seed, index, size, quality = job
    img, boxes, params = render_board(fen, image_rng(seed, index), size)
    if path is not None:
        img.save(path, format="JPEG", quality=quality)
    return boxes, params


def render_many(fens, paths, *, seed: int, size: int = 512, workers: int | None = None,
                quality: int = 92, progress: bool = False, start_index: int = 0, executor=None):
    """Render ``fens`` to JPEG files ``paths`` on ``executor`` (a
    :class:`d3mkit.io.executor.Executor`: local pool or Dask cluster) or, without one, over
    ``workers`` local processes (default the CPU count, 1 = in this process). Returns per
    image ``(boxes, params)``; image ``i`` depends only on ``(seed, start_index + i)``, so
    the bytes do not depend on where it was rendered."""
    from d3mkit.io.executor import make_executor
    jobs = [(f, str(p) if p is not None else None, seed, start_index + i, size, quality)
            for i, (f, p) in enumerate(zip(fens, paths))]
    if executor is not None:
        return executor.map(_render_one, jobs, progress=progress, desc="render", unit="img")
    with make_executor(1 if len(jobs) < 8 else workers) as ex:
        return ex.map(_render_one, jobs, progress=progress, desc="render", unit="img")


def write_images(fens, directory: Path | str, names, **kw):
    """Render ``fens`` to ``directory/names[i]``; returns what :func:`render_many` returns."""
    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    return render_many(fens, [d / n for n in names], **kw)
