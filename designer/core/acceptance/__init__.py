"""Acceptance: the tests to run on the built cluster with the bands this design predicts
(``plan``), and the measured results set beside them with likely causes for a miss
(``check``)."""
