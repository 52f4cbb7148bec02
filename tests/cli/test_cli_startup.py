"""Start-up: ``designer --help`` loads no command module, no solver, no subnet-manager check and
no Qt, and a command loads only its own module (checked in a fresh interpreter each time)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from tests._paths import ROOT

HEAVY = ("numpy", "scipy", "pydantic", "PySide6", "designer.core.ibcheck.check")


def _modules_after(argv: list[str]) -> set[str]:
    script = textwrap.dedent(
        f"""
        import contextlib, io, sys
        from designer.cli.main import main
        with contextlib.redirect_stdout(io.StringIO()):
            try:
                main({argv!r})
            except SystemExit:
                pass
        print("\\n".join(sys.modules))
        """
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return set(out.stdout.split())


def test_help_imports_nothing_heavy():
    loaded = _modules_after(["--help"])
    assert not [m for m in HEAVY if m in loaded]
    assert not [m for m in loaded if m.startswith("designer.cli.commands.")]


def test_a_command_loads_only_its_module():
    loaded = _modules_after(["catalog", "--help"])
    commands = {m for m in loaded if m.startswith("designer.cli.commands.")}
    assert "designer.cli.commands.catalog" in commands
    assert not commands & {"designer.cli.commands.check_ib", "designer.cli.commands.solve"}
    assert "designer.core.ibcheck.check" not in loaded


def test_help_lists_every_command():
    from designer.cli.commands import COMMANDS
    from designer.cli.main import build_parser

    text = build_parser().format_help()
    for name, (_module, help_line) in COMMANDS.items():
        assert name in text
        assert help_line.split()[0] in text


def test_ibcheck_names_load_on_first_use():
    script = (
        "import sys, designer.core.ibcheck as ib\n"
        "a = 'designer.core.ibcheck.check' in sys.modules\n"
        "ib.missing_reason\n"
        "b = 'designer.core.ibcheck.check' in sys.modules\n"
        "ib.check_ib\n"
        "print(a, b, 'designer.core.ibcheck.check' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert out.stdout.split() == ["False", "False", "True"], out.stderr


# What ``designer solve`` must not import: the window, the distributed engine, spreadsheets,
# the LP solver, graph libraries and the parts of scipy the solve does without (scipy.sparse.
# csgraph brings scipy.linalg: 0.1-0.15 s of start-up), nor the core's other stages.
NOT_FOR_SOLVE = (
    "PySide6", "pyqtgraph", "dask", "distributed", "openpyxl", "highspy", "networkx", "yaml",
    "scipy.linalg", "scipy.sparse.csgraph", "scipy.sparse.linalg", "scipy.optimize",
    "designer.gui", "designer.core.traffic", "designer.core.sweep", "designer.core.writers",
    "designer.core.ibcheck", "designer.core.ethernet", "designer.core.generators",
    # price books are read only with --price-book (their readers load on use)
    "designer.core.sources.pricebook_io", "designer.core.sources.edit",
)


def test_solve_imports_what_it_needs_and_no_more():
    example = ROOT / "projects/dgx-superpod-4su-ib-ndr.fabric.json"
    loaded = _modules_after(["solve", str(example)])
    wrong = sorted(m for m in loaded
                   if any(m == x or m.startswith(x + ".") for x in NOT_FOR_SOLVE))
    assert not wrong, f"designer solve imported {wrong}"
    assert "designer.core.solver.certificates" in loaded  # the solve itself still runs whole
    mine = sorted(m for m in loaded if m.startswith("designer."))
    # the list is short enough to read: a new import here is a choice, not an accident
    # (72: the project model's other networks (networks, .model, .names) and the public
    # faces' lazy loader came in as choices; the networks' generators and solve stay out)
    assert len(mine) <= 72, mine
    assert not [m for m in mine if m.startswith("designer.core.networks.")
                and m not in ("designer.core.networks.model", "designer.core.networks.names")]


def test_the_collector_is_back_after_a_command_and_a_library_call_freezes_nothing():
    """The command's modules load with the collector paused; it runs again afterwards. The
    import-time objects are frozen only for the process's own command line (``argv`` None),
    never for a caller passing ``argv`` (a test session's objects stay collectable)."""
    script = textwrap.dedent(
        """
        import contextlib, gc, io, sys
        from designer.cli.main import main
        with contextlib.redirect_stdout(io.StringIO()):
            main(["catalog"])
        library = (gc.isenabled(), gc.get_freeze_count())
        sys.argv = ["designer", "catalog"]
        with contextlib.redirect_stdout(io.StringIO()):
            main()
        print(library[0], library[1], gc.isenabled(), gc.get_freeze_count() > 0)
        """
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["True", "0", "True", "True"]
