"""A fuzz run in the suite: mutated example projects through validate, solve --json and export
bom must end in a clean refusal or a sane result, never a traceback, a hang, non-JSON output or
memory past a bound (``scripts/fuzz_projects.py`` runs the same mutator on thousands of files)."""

from __future__ import annotations

import collections

from tests.fuzz_harness import run_files
from tests.project_mutations import cases

CASES = 160  # in the suite; the script runs thousands
SEED = 20261123
# The child runs under this address-space ceiling: a file that makes any command allocate past
# it fails the test as "memory".
MEMORY_BYTES = 3 << 30


def test_mutated_projects_never_break_the_command_line(tmp_path):
    files = []
    for name, _kind, data in cases(CASES, SEED):
        path = tmp_path / name
        path.write_bytes(data)
        files.append(path)
    summary = run_files(files, seconds=30, memory_bytes=MEMORY_BYTES)
    kinds = collections.Counter(o.kind for o in summary.outcomes)
    assert len(summary.outcomes) == 3 * CASES
    # both ends occur: the mutations are not all harmless, nor all refused
    assert kinds["refused"] > CASES // 4 and kinds["ok"] > CASES // 10, kinds
    failures = [f"{o.kind} {o.command} {o.case}: {o.detail}" for o in summary.failures]
    assert not failures, "\n".join(failures[:20])
