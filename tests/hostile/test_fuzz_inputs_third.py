"""A fuzz run in the suite over InfraGraph files, acceptance results, job traces and the
writers with a link, a FIFO or a hard link planted at their output: never a traceback, a hang,
memory past a bound, a wrong figure, an import the tool then refuses, a control character on
the terminal, a write through a link or a replaced FIFO (``scripts/fuzz_inputs.py`` runs the
same generators on thousands of inputs)."""

from __future__ import annotations

import collections

from tests.fuzz_harness import run_cases
from tests.input_mutations import cases
from tests.input_mutations_third import SURFACES_THIRD

PER_SURFACE = 15
SEED = 20261128


def test_mutated_inputs_and_planted_outputs_never_break_the_command_line(tmp_path):
    todo = cases(PER_SURFACE, SEED, tmp_path, SURFACES_THIRD)
    summary = run_cases(todo, seconds=60, memory_bytes=3 << 30)
    assert len(summary.outcomes) == len(todo) == PER_SURFACE * len(SURFACES_THIRD)
    failures = [f"{o.kind} {o.case}: {o.detail}" for o in summary.failures]
    assert not failures, "\n".join(failures[:20])
    for s in SURFACES_THIRD:
        kinds = collections.Counter(o.kind for o in summary.outcomes if o.command == s)
        assert kinds["refused"] >= 1 and kinds["ok"] >= 1, (s, kinds)
