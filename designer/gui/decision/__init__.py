"""The decision analysis in the window: Workload, Estimate, and Compare panels."""
