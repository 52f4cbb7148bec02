"""Traffic under load and failures: the panel and its wiring."""
