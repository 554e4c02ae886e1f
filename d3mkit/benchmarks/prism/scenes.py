"""Procedural premise images for the synthetic PRISM demo corpus (Pillow only).

What this module owns: :func:`draw_scene` — a small schematic picture of an *object*
(a coloured shape chosen from the object's name) in a *state*: ``ok`` (plain), ``sun``
(a yellow sun), ``rain`` (grey sky and blue drops), ``snow`` (white flakes), ``dark``
(a dark overlay), ``fire`` (orange flames), ``broken`` (black cracks) or ``locked`` (a
padlock). The pictures are plainly synthetic; they stand in for real premise photos so
the demo runs offline. Jitter (position, size, colour noise) comes from the numpy
Generator passed in: same seed, same pixels.

>>> import numpy as np
>>> im = draw_scene("cup", "broken", np.random.default_rng(0))
>>> im.size, im.mode
((64, 64), 'RGB')
>>> np.array_equal(np.asarray(im), np.asarray(draw_scene("cup", "broken", np.random.default_rng(0))))
True
"""

from __future__ import annotations

import zlib

import numpy as np

STATES = ("ok", "sun", "rain", "snow", "dark", "fire", "broken", "locked")
SIZE = 64


def _object_style(obj: str) -> tuple[str, tuple[int, int, int]]:
    h = zlib.crc32(obj.encode("utf-8"))
    shape = ("rect", "ellipse", "triangle", "tall")[h % 4]
    color = (60 + (h >> 3) % 150, 60 + (h >> 11) % 150, 60 + (h >> 19) % 150)
    return shape, color


def draw_scene(obj: str, state: str, rng: np.random.Generator, size: int = SIZE):
    """A ``size`` x ``size`` RGB picture of ``obj`` in ``state`` (see module docstring)."""
    from PIL import Image, ImageDraw
    if state not in STATES:
        raise ValueError(f"unknown state {state!r} ({', '.join(STATES)})")
    sky = (150, 190, 230) if state not in ("rain", "dark") else (110, 115, 125)
    im = Image.new("RGB", (size, size), sky)
    d = ImageDraw.Draw(im)
    d.rectangle([0, int(size * 0.75), size, size], fill=(90, 140, 70) if state != "snow" else (235, 235, 240))
    shape, color = _object_style(obj)
    cx = size / 2 + rng.uniform(-6, 6)
    cy = size * 0.55 + rng.uniform(-4, 4)
    r = size * rng.uniform(0.18, 0.24)
    box = [cx - r, cy - r, cx + r, cy + r]
    if shape == "rect":
        d.rectangle(box, fill=color, outline=(20, 20, 20))
    elif shape == "ellipse":
        d.ellipse(box, fill=color, outline=(20, 20, 20))
    elif shape == "triangle":
        d.polygon([(cx, cy - r), (cx - r, cy + r), (cx + r, cy + r)], fill=color, outline=(20, 20, 20))
    else:
        d.rectangle([cx - r / 2, cy - 1.4 * r, cx + r / 2, cy + r], fill=color, outline=(20, 20, 20))
    if state == "sun":
        sx, sy = size * 0.8 + rng.uniform(-3, 3), size * 0.18 + rng.uniform(-3, 3)
        d.ellipse([sx - 7, sy - 7, sx + 7, sy + 7], fill=(250, 220, 40))
    elif state == "rain":
        for _ in range(40):
            x, y = rng.uniform(0, size), rng.uniform(0, size * 0.8)
            d.line([x, y, x - 2, y + 6], fill=(40, 80, 220), width=1)
    elif state == "snow":
        for _ in range(40):
            x, y = rng.uniform(0, size), rng.uniform(0, size)
            d.ellipse([x - 1.5, y - 1.5, x + 1.5, y + 1.5], fill=(255, 255, 255))
    elif state == "fire":
        for _ in range(4):
            fx = cx + rng.uniform(-r, r)
            d.polygon([(fx, cy - r - 14), (fx - 6, cy - r + 4), (fx + 6, cy - r + 4)], fill=(250, 120, 20))
    elif state == "broken":
        for _ in range(3):
            pts = [(cx + rng.uniform(-r, r), cy + rng.uniform(-r, r)) for _ in range(4)]
            d.line(pts, fill=(0, 0, 0), width=2)
    elif state == "locked":
        d.rectangle([cx - 6, cy - 2, cx + 6, cy + 9], fill=(120, 120, 120), outline=(0, 0, 0))
        d.arc([cx - 5, cy - 10, cx + 5, cy + 2], 180, 360, fill=(0, 0, 0), width=2)
    arr = np.asarray(im, dtype=np.int16)
    if state == "dark":
        arr = arr // 3
    arr = arr + rng.integers(-8, 9, size=arr.shape)
    return Image.fromarray(np.clip(arr, 0, 255).astype(np.uint8), "RGB")
