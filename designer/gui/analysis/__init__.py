"""Live analysis: the solver service and the panels it feeds."""
