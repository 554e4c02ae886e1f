"""The issue-code catalogue lives in :mod:`d3mkit.core.codes` (one catalogue for all of d3mkit);
this module gives the validator its part: ``CODES`` here is :data:`d3mkit.core.codes.VALIDATION`,
the codes validation emits."""

from d3mkit.core.codes import VALIDATION as CODES  # noqa: F401
from d3mkit.core.codes import E, W, make, severity_of, table  # noqa: F401
