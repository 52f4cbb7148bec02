"""Run the command line on many project files and sort each run into a kind of outcome.

Used by the fuzz test and ``scripts/fuzz_projects.py``. Runs happen in a child process with a
memory ceiling, one run at a time under a time limit, so a memory bomb or a hang is reported as
one, not as the harness's own death. Outcomes: ``refused`` (exit 2 with a one-line message),
``ok`` (exit 0 or 1, and for ``--json`` strict JSON), and the failures ``traceback``,
``timeout``, ``memory``, ``not-json``, ``crash`` (the child died).
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
from dataclasses import dataclass, field
from pathlib import Path

FAILURES = ("traceback", "timeout", "memory", "not-json", "crash")
COMMANDS = (("validate",), ("solve", "--json"), ("export", "bom"))


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


def _run_one(path: Path, command: tuple[str, ...], out_dir: Path, seconds: float) -> Outcome:
    from designer.cli.main import main
    from designer.core.errors import MEMORY_MESSAGE

    argv = [*command, str(path)]
    if command[0] == "export":
        argv += ["-o", str(out_dir / "bom.xlsx")]
    out, err = io.StringIO(), io.StringIO()
    start = time.perf_counter()

    def alarm(signum, frame):
        raise _Timeout

    signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    name = " ".join(command)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(argv)
    except _Timeout:
        return Outcome(path.name, name, "timeout", f"over {seconds:g} s", seconds)
    except MemoryError:
        return Outcome(path.name, name, "memory", "MemoryError", time.perf_counter() - start)
    except SystemExit as exc:  # argparse
        code = exc.code if isinstance(exc.code, int) else 2
    except Exception as exc:
        return Outcome(path.name, name, "traceback", f"{type(exc).__name__}: {exc}"[:300],
                       time.perf_counter() - start)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    took = time.perf_counter() - start
    if code == 2:
        message = err.getvalue().strip()
        if MEMORY_MESSAGE in message:
            return Outcome(path.name, name, "memory", message[:300], took)
        if "Traceback" in message or not message:
            return Outcome(path.name, name, "traceback", message[:300] or "exit 2, no message",
                           took)
        return Outcome(path.name, name, "refused", message.splitlines()[-1][:300], took)
    if code == 70:  # the command line's internal error: a bug
        return Outcome(path.name, name, "traceback", err.getvalue()[:300], took)
    if code not in (0, 1):
        return Outcome(path.name, name, "traceback", f"exit {code}: {err.getvalue()[:200]}",
                       took)
    if "--json" in command and not _strict_json(out.getvalue()):
        return Outcome(path.name, name, "not-json", out.getvalue()[:120], took)
    return Outcome(path.name, name, "ok", "", took)


def worker(files: list[str], progress: str, seconds: float, memory_bytes: int) -> None:
    """Child process: run every command on every file, one JSON line per outcome."""
    resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    out_dir = Path(tempfile.mkdtemp(prefix="fuzz-out-"))
    with open(progress, "a", buffering=1) as log:
        for f in files:
            for command in COMMANDS:
                log.write(json.dumps({"start": f, "command": " ".join(command)}) + "\n")
                o = _run_one(Path(f), command, out_dir, seconds)
                log.write(json.dumps(o.__dict__) + "\n")


def run_files(
    files: list[Path], *, seconds: float = 30.0, memory_bytes: int = 4 << 30
) -> Summary:
    """Run the commands on ``files`` in child processes; a child that dies is restarted after
    the run that killed it, which is recorded as a crash."""
    summary = Summary()
    todo = [str(f) for f in files]
    with tempfile.TemporaryDirectory(prefix="fuzz-log-") as tmp:
        while todo:
            progress = os.path.join(tmp, f"progress-{len(summary.outcomes)}.jsonl")
            code = (
                "import json,sys\nfrom tests.fuzz_harness import worker\n"
                "a=json.load(open(sys.argv[1]))\nworker(a['files'],a['progress'],a['seconds'],"
                "a['memory'])\n"
            )
            args = os.path.join(tmp, "args.json")
            with open(args, "w") as fh:
                json.dump({"files": todo, "progress": progress, "seconds": seconds,
                           "memory": memory_bytes}, fh)
            budget = seconds * len(COMMANDS) * len(todo) + 120
            root = Path(__file__).resolve().parents[1]
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
                        started = None
                        if row["command"] == " ".join(COMMANDS[-1]):
                            done.add(row["case"])
            if proc.returncode == 0:
                break
            if started is None:
                raise RuntimeError(f"fuzz worker failed: {proc.stderr.decode()[-500:]}")
            dead = Path(started["start"]).name
            summary.outcomes.append(Outcome(dead, started["command"], "crash",
                                            f"child exit {proc.returncode}"))
            done.add(dead)
            todo = [f for f in todo if Path(f).name not in done]
    return summary
