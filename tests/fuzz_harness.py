"""Run the command line on many hostile or odd inputs and sort each run into a kind of outcome.

Used by the fuzz tests and ``scripts/fuzz_projects.py`` / ``scripts/fuzz_inputs.py``. Runs
happen in a child process with a memory ceiling, one run at a time under a time limit, so a
memory bomb or a hang is reported as one, not as the harness's own death. Outcomes: ``refused``
(exit 2 with a one-line message), ``ok`` (exit 0 or 1, and for ``--json`` strict JSON), and the
failures ``traceback``, ``timeout``, ``memory``, ``not-json``, ``crash`` (the child died) and
``wrong`` (the run was accepted, but a figure it read differs from the one the input was
written with: a silent wrong figure).

A case is a command line (``argv``) and, for inputs written from known figures, the name of a
check (``tests.input_mutations.CHECKS``) and the figures it expects.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from tests._paths import ROOT

FAILURES = ("traceback", "timeout", "memory", "not-json", "crash", "wrong", "invalid",
            "injection", "escape", "damage")
# the classes a check may name (``"escape: ..."``); any other finding is ``wrong``
_CHECK_KINDS = ("invalid", "escape", "damage")
# a control character an input could carry to the terminal (tabs and line ends are output's own)
_CONTROL = set(chr(c) for c in (*range(0, 9), 11, 12, *range(14, 32), 127, *range(0x80, 0xA0)))
_CONTROL |= {"\u202e", "\u202d", "\u2066", "\u2067", "\u2068"}
COMMANDS = (("validate",), ("solve", "--json"), ("export", "bom"))


@dataclass(frozen=True)
class Case:
    """One run: ``name`` (unique), the command line, and what a successful run must show."""

    name: str
    argv: tuple[str, ...]
    check: str = ""  # a name in tests.input_mutations.CHECKS, or "" for none
    expect: object = None  # what the check compares with (JSON-able)
    surface: str = ""  # what kind of input, for the summary


@dataclass(frozen=True)
class Outcome:
    case: str
    command: str
    kind: str
    detail: str = ""
    seconds: float = 0.0


@dataclass
class Summary:
    outcomes: list[Outcome] = field(default_factory=list)

    def count(self, kind: str) -> int:
        return sum(1 for o in self.outcomes if o.kind == kind)

    @property
    def failures(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.kind in FAILURES]


class _Timeout(BaseException):
    """Raised by the alarm; a BaseException so the code under test cannot swallow it."""


def _strict_json(text: str) -> bool:
    def refuse(const: str) -> None:
        raise ValueError(const)

    try:
        json.loads(text, parse_constant=refuse)
    except ValueError:
        return False
    return True


def _run_case(case: Case, seconds: float) -> Outcome:
    from designer.cli.main import main
    from designer.core.errors import MEMORY_MESSAGE

    out, err = io.StringIO(), io.StringIO()
    start = time.perf_counter()

    def alarm(signum, frame):
        raise _Timeout

    # the limit is CPU time (a machine shared with other work stretches the wall clock); a run
    # blocked without using CPU (a read that waits) meets the wall-clock backstop
    signal.signal(signal.SIGALRM, alarm)
    signal.signal(signal.SIGPROF, alarm)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    signal.setitimer(signal.ITIMER_REAL, max(60.0, 6 * seconds))
    name = case.surface or " ".join(case.argv[:2])
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(list(case.argv))
    except _Timeout:
        return Outcome(case.name, name, "timeout", f"over {seconds:g} s of CPU",
                       time.perf_counter() - start)
    except MemoryError:
        return Outcome(case.name, name, "memory", "MemoryError", time.perf_counter() - start)
    except SystemExit as exc:  # argparse
        code = exc.code if isinstance(exc.code, int) else 2
    except Exception as exc:
        return Outcome(case.name, name, "traceback", f"{type(exc).__name__}: {exc}"[:300],
                       time.perf_counter() - start)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.setitimer(signal.ITIMER_PROF, 0)
    took = time.perf_counter() - start
    from tests.input_mutations import ALWAYS, CHECKS

    if case.check in ALWAYS and code in (0, 1, 2):
        found = CHECKS[case.check](out.getvalue(), case)
        if found:
            kind, _, detail = found.partition(": ")
            return Outcome(case.name, name, kind if kind in _CHECK_KINDS else "wrong",
                           detail[:300], took)
    if any(ch in _CONTROL for ch in out.getvalue() + err.getvalue()):
        bad = next(ch for ch in out.getvalue() + err.getvalue() if ch in _CONTROL)
        return Outcome(case.name, name, "injection", f"U+{ord(bad):04X} reached the terminal",
                       took)
    if code == 2:
        message = err.getvalue().strip()
        if MEMORY_MESSAGE in message:
            return Outcome(case.name, name, "memory", message[:300], took)
        if "Traceback" in message or not message:
            return Outcome(case.name, name, "traceback", message[:300] or "exit 2, no message",
                           took)
        return Outcome(case.name, name, "refused", message.splitlines()[-1][:300], took)
    if code == 70:  # the command line's internal error: a bug
        return Outcome(case.name, name, "traceback", err.getvalue()[:300], took)
    if code not in (0, 1):
        return Outcome(case.name, name, "traceback", f"exit {code}: {err.getvalue()[:200]}",
                       took)
    if "--json" in case.argv and not _strict_json(out.getvalue()):
        return Outcome(case.name, name, "not-json", out.getvalue()[:120], took)
    if case.check and code == 0 and case.check not in ALWAYS:
        wrong = CHECKS[case.check](out.getvalue(), case)
        if wrong:
            kind, _, detail = wrong.partition(": ")
            if kind in _CHECK_KINDS:
                return Outcome(case.name, name, kind, detail[:300], took)
            return Outcome(case.name, name, "wrong", wrong[:300], took)
    return Outcome(case.name, name, "ok", "", took)


def worker(cases: list[dict], progress: str, seconds: float, memory_bytes: int) -> None:
    """Child process: run every case, one JSON line per outcome."""
    resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    with open(progress, "a", buffering=1) as log:
        for raw in cases:
            case = Case(**{**raw, "argv": tuple(raw["argv"])})
            log.write(json.dumps({"start": case.name, "command": case.surface}) + "\n")
            o = _run_case(case, seconds)
            log.write(json.dumps(o.__dict__) + "\n")


def run_cases(cases: list[Case], *, seconds: float = 30.0, memory_bytes: int = 4 << 30
              ) -> Summary:
    """Run ``cases`` in child processes; a child that dies is restarted after the run that
    killed it, which is recorded as a crash."""
    summary = Summary()
    todo = [asdict(c) for c in cases]
    root = ROOT
    with tempfile.TemporaryDirectory(prefix="fuzz-log-") as tmp:
        while todo:
            progress = os.path.join(tmp, f"progress-{len(summary.outcomes)}.jsonl")
            code = (
                "import json,sys\nfrom tests.fuzz_harness import worker\n"
                "a=json.load(open(sys.argv[1]))\nworker(a['cases'],a['progress'],a['seconds'],"
                "a['memory'])\n"
            )
            args = os.path.join(tmp, "args.json")
            with open(args, "w") as fh:
                json.dump({"cases": todo, "progress": progress, "seconds": seconds,
                           "memory": memory_bytes}, fh)
            budget = seconds * len(todo) + 120
            env = dict(os.environ, PYTHONPATH=os.pathsep.join(
                [str(root), os.environ.get("PYTHONPATH", "")]))
            proc = subprocess.run([sys.executable, "-c", code, args], capture_output=True,
                                  timeout=budget, check=False, cwd=root, env=env)
            started: dict | None = None
            done: set[str] = set()
            with open(progress) as log:
                for line in log:
                    row = json.loads(line)
                    if "start" in row:
                        started = row
                    else:
                        summary.outcomes.append(Outcome(**row))
                        done.add(row["case"])
                        started = None
            if proc.returncode == 0:
                break
            if started is None:
                raise RuntimeError(f"fuzz worker failed: {proc.stderr.decode()[-500:]}")
            summary.outcomes.append(Outcome(started["start"], started["command"], "crash",
                                            f"child exit {proc.returncode}"))
            done.add(started["start"])
            todo = [c for c in todo if c["name"] not in done]
    return summary


def project_cases(files: list[Path], out_dir: Path) -> list[Case]:
    """validate, solve --json and export bom on each project file."""
    out = []
    for f in files:
        for command in COMMANDS:
            argv = (*command, str(f))
            if command[0] == "export":
                argv += ("-o", str(out_dir / "bom.xlsx"))
            out.append(Case(f"{f.name} {' '.join(command)}", argv, surface=" ".join(command)))
    return out


def run_files(files: list[Path], *, seconds: float = 30.0, memory_bytes: int = 4 << 30
              ) -> Summary:
    """The project-file fuzz: every command of ``COMMANDS`` on every file; outcomes named by
    file, with the command."""
    with tempfile.TemporaryDirectory(prefix="fuzz-out-") as out_dir:
        summary = run_cases(project_cases(files, Path(out_dir)), seconds=seconds,
                            memory_bytes=memory_bytes)
    return Summary([Outcome(o.case.split(" ", 1)[0], o.command, o.kind, o.detail, o.seconds)
                    for o in summary.outcomes])
