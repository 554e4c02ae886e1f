"""Rationale metrics of PVLr, registered as custom metrics: ``rationaleTokenF1``,
``rationaleRougeL`` (ROUGE-L on SQuAD-normalized tokens) and ``rationaleRougeLStandard``
(ROUGE-L on the tokens of the ``rouge-score`` package's default tokenizer).

What this module owns: the pure functions (token normalization, per-pair token F1, LCS
length, per-pair ROUGE-L F-measure) and their registration. A problemDoc names them as
``{"metric": "other", "specifyOther": "rationaleTokenF1", "applicabilityToTarget":
"allTargets"}``.

Multi-target convention: a PVLr problem has two targets, ``label`` then ``rationale``.
Called with 2-D ``(rows, targets)`` arrays (applicability ``allTargets``, the default
registered here) the metrics score the **last** column, the rationale; with 1-D arrays
they score those values. This keeps ``rationaleTokenF1[label]`` out of scores.csv.

Normalization (SQuAD style, :func:`normalize_tokens`): lower case, punctuation removed,
the articles a/an/the removed, whitespace collapsed. ``rationaleRougeL`` uses it too, so it
is *not* standard ROUGE-L: dropping articles and punctuation changes the LCS and the
lengths whenever a rationale has them. ``rationaleRougeLStandard`` tokenizes as
``rouge_score.tokenize`` does without stemming (:func:`rouge_tokens`: lower case, every
run of characters other than a-z and 0-9 a separator, articles kept). Two empty texts
agree fully (1.0); one empty text against a non-empty one scores 0.0.

>>> rationale_token_f1(["the glass is broken"], ["glass broken"])
0.8
>>> round(rationale_rouge_l(["the glass is broken"], ["a glass that is broken"]), 4)
0.8571
>>> round(rationale_rouge_l(["it has a collar"], ["collar it has"]), 4)
0.6667
>>> round(rationale_rouge_l_standard(["the glass is broken"], ["a glass that is broken"]), 4)
0.6667
"""

from __future__ import annotations

import re
import string
from collections import Counter

import numpy as np

from d3mkit.core.registry import register_metric

_PUNCT = re.compile("[" + re.escape(string.punctuation) + "\u2018\u2019\u201c\u201d]")
_ARTICLES = re.compile(r"\b(a|an|the)\b")
_NON_ALNUM = re.compile(r"[^a-z0-9]+")


def normalize_tokens(text) -> list[str]:
    """SQuAD-style tokens.

    >>> normalize_tokens("The Glass, it's BROKEN!")
    ['glass', 'its', 'broken']
    """
    if text is None or (isinstance(text, float) and np.isnan(text)):
        return []
    s = str(text).lower()
    s = _PUNCT.sub("", s)
    s = _ARTICLES.sub(" ", s)
    return s.split()


def rouge_tokens(text) -> list[str]:
    """Tokens as the ``rouge-score`` package's default tokenizer makes them (no stemming).

    >>> rouge_tokens("The Glass, it's BROKEN!")
    ['the', 'glass', 'it', 's', 'broken']
    """
    if text is None or (isinstance(text, float) and np.isnan(text)):
        return []
    return _NON_ALNUM.sub(" ", str(text).lower()).split()


def token_f1(reference: list[str], prediction: list[str]) -> float:
    """F1 of the token multisets.

    >>> token_f1(["glass", "broken"], ["glass", "is", "broken"])
    0.8
    >>> token_f1([], []), token_f1(["a"], [])
    (1.0, 0.0)
    """
    if not reference or not prediction:
        return float(reference == prediction)
    common = sum((Counter(reference) & Counter(prediction)).values())
    if common == 0:
        return 0.0
    p, r = common / len(prediction), common / len(reference)
    return 2 * p * r / (p + r)


def lcs_length(a: list[str], b: list[str]) -> int:
    """Length of the longest common subsequence, one numpy row per token of ``a``.

    The row recurrence ``L[i][j] = max(L[i-1][j], L[i][j-1], L[i-1][j-1] + match)`` is a
    running maximum along ``j`` of ``max(L[i-1][j], L[i-1][j-1] + match)``.

    >>> lcs_length("a b c d e".split(), "b d x e".split())
    3
    >>> lcs_length([], ["x"])
    0
    """
    if not a or not b:
        return 0
    vocab: dict[str, int] = {}
    ia = np.array([vocab.setdefault(t, len(vocab)) for t in a])
    ib = np.array([vocab.setdefault(t, len(vocab)) for t in b])
    row = np.zeros(len(ib) + 1, dtype=np.int64)
    for tok in ia:
        match = (ib == tok).astype(np.int64)
        cand = np.maximum(row[1:], row[:-1] + match)
        row = np.concatenate(([0], np.maximum.accumulate(cand)))
    return int(row[-1])


def rouge_l_f(reference: list[str], prediction: list[str], beta: float = 1.0) -> float:
    """ROUGE-L F-measure from the LCS: ``(1+b^2) P R / (R + b^2 P)``.

    >>> round(rouge_l_f("police killed the gunman".split(), "police kill the gunman".split()), 4)
    0.75
    """
    if not reference or not prediction:
        return float(reference == prediction)
    lcs = lcs_length(reference, prediction)
    if lcs == 0:
        return 0.0
    p, r = lcs / len(prediction), lcs / len(reference)
    return (1 + beta ** 2) * p * r / (r + beta ** 2 * p)


def _mean_over_rationales(y_true, y_pred, score, tokens) -> float:
    """``score(tokens(true), tokens(pred))`` averaged over the rows' rationales (0.0 for none)."""
    t, p = _rationale_columns(y_true, y_pred)
    if not len(t):
        return 0.0
    return float(np.mean([score(tokens(a), tokens(b)) for a, b in zip(t, p)]))


def _rationale_columns(y_true, y_pred) -> tuple[np.ndarray, np.ndarray]:
    t = np.asarray(y_true, dtype=object)
    p = np.asarray(y_pred, dtype=object)
    if t.ndim == 2:
        t, p = t[:, -1], p[:, -1]
    if t.shape != p.shape:
        raise ValueError(f"truth has {t.shape[0]} rows, predictions {p.shape[0]}")
    return t, p


@register_metric("rationaleTokenF1", higher_is_better=True, best=1.0, worst=0.0,
                 applicability="allTargets",
                 description="SQuAD-style token F1 between predicted and reference rationale, "
                             "averaged over rows (PVLr; 2-D input: last target column)")
def rationale_token_f1(y_true, y_pred) -> float:
    """Mean SQuAD-style token F1 of predicted vs reference rationales.

    >>> rationale_token_f1(["it has a collar", "the glass is shattered"],
    ...                    ["it has a collar", "it is raining"])   # (1 + 1/3) / 2
    0.6666666666666666
    >>> rationale_token_f1([["allow", "x y"]], [["prevent", "x"]])   # 2-D: last column
    0.6666666666666666
    """
    return _mean_over_rationales(y_true, y_pred, token_f1, normalize_tokens)


@register_metric("rationaleRougeL", higher_is_better=True, best=1.0, worst=0.0,
                 applicability="allTargets",
                 description="ROUGE-L F-measure (beta 1) between predicted and reference rationale on "
                             "SQuAD-normalized tokens (lower case, punctuation and the articles a/an/the "
                             "removed first), averaged over rows - not standard ROUGE-L on raw text, from "
                             "which it differs whenever articles or punctuation matter (see "
                             "rationaleRougeLStandard) (PVLr; 2-D input: last column)")
def rationale_rouge_l(y_true, y_pred) -> float:
    """Mean ROUGE-L F-measure (beta 1) of SQuAD-normalized predicted vs reference rationales.

    >>> rationale_rouge_l(["the glass is shattered", "cats are pets"], ["glass shattered", "dogs"])
    0.4
    """
    return _mean_over_rationales(y_true, y_pred, rouge_l_f, normalize_tokens)


@register_metric("rationaleRougeLStandard", higher_is_better=True, best=1.0, worst=0.0,
                 applicability="allTargets",
                 description="standard ROUGE-L F-measure (beta 1, no stemming) between predicted and "
                             "reference rationale, tokenized as the rouge-score package does (lower case, "
                             "non-alphanumeric characters separate tokens, articles kept), averaged over "
                             "rows (PVLr; 2-D input: last column)")
def rationale_rouge_l_standard(y_true, y_pred) -> float:
    """Mean standard ROUGE-L F-measure (rouge-score's tokens, no stemming).

    >>> rationale_rouge_l_standard(["the glass is shattered", "cats are pets"], ["glass shattered", "dogs"])
    0.3333333333333333
    """
    return _mean_over_rationales(y_true, y_pred, rouge_l_f, rouge_tokens)
