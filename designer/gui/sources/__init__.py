"""Price books and latency measurements: where the figures come from."""
