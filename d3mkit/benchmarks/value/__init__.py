"""VALUE chess: board-state recognition from images, judged by logical consistency.

Spec: the VALUE paper (Visual Logical Understanding Evaluation), sections 3-5. The parts:

* :mod:`.boards` - the 13 square symbols and lossless conversions (FEN placement, 64
  symbols, 8x8 release-encoded arrays, python-chess boards);
* :mod:`.rules` - the eight sanity rules of eq. 2, checked on N boards at once;
* :mod:`.metrics` - exactMatch, boardF1, saneF1, contradictionRate, meanRuleViolations;
* :mod:`.report` - the per-rule report and the adjusted likelihood of eq. 8;
* :mod:`.games`, :mod:`.render`, :mod:`.release` - board sources and images;
* :mod:`.cli`, :mod:`.cli_detection` - ``d3mkit build value`` / ``value-detection``;
* :mod:`.model`, :mod:`.decode`, :mod:`.baseline`, :mod:`.demo` - the ResNet baseline.

Nothing here imports torch at import time.
"""
