"""Decision analysis: workloads, collective and step-time estimates, money, TCO, compare and
the recommendation, all read from a solved design (no Qt, no recompiling).

Import from the modules (``designer.core.analysis.estimate`` ...): the project model imports
``workload`` from here, so this package itself imports nothing.
"""
