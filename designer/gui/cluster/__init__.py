"""The Cluster panel: a trace of jobs replayed on the design over time."""
