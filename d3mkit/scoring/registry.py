"""The metric registry lives in :mod:`d3mkit.core.registry` (below validation in the import
order); this module re-exports its public names for plugins and callers that import
``d3mkit.scoring.registry``."""

from d3mkit.core.registry import (CLASSIFICATION, CLUSTERING, ENTRY_POINT_GROUP, OBJECT_DETECTION,  # noqa: F401
                             REGRESSION, Metric, add_metric, get_metric, names, plugin_issues,
                             register_metric, registry, resolve, unregister_metric)
