"""The metric registry lives in :mod:`d3mkit.registry` (below validation in the import
order); this name stays for plugins and callers that import ``d3mkit.scoring.registry``."""

import sys

from d3mkit import registry as _registry

sys.modules[__name__] = _registry
