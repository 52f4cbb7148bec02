"""Shared fixtures. GUI tests run offscreen; hypothesis profiles keep CI time bounded."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest
from hypothesis import HealthCheck, settings

# "ci" (the default) draws the same examples on every run, so a suite that passes here passes
# in CI; "explore" draws new ones, many more, to look for cases nobody has seen yet
settings.register_profile(
    "ci", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow],
    derandomize=True,
)
settings.register_profile("dev", max_examples=25, deadline=None)
settings.register_profile(
    "explore", max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture(scope="session")
def catalog():
    from designer.core.catalog import builtin_catalog

    return builtin_catalog()


def pytest_terminal_summary(terminalreporter, config) -> None:
    """Name the order the tests ran in (pytest-randomly shuffles them on every run), so a
    failure that depends on the order can be run again in that order."""
    seed = getattr(config.option, "randomly_seed", None)
    if seed is not None and getattr(config.option, "randomly_reorganize", True):
        terminalreporter.write_line(
            f"tests ran in random order, seed {seed}: repeat it with --randomly-seed={seed}")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """In CI (CI=true), a test skipped because a system tool "is not installed" fails instead:
    .ci/run installs every Debian package the suite uses, so a skip there is a missing install
    step, not a machine without the tool."""
    outcome = yield
    report = outcome.get_result()
    if os.environ.get("CI") == "true" and report.skipped and not hasattr(report, "wasxfail"):
        reason = str(report.longrepr[-1]) if isinstance(report.longrepr, tuple) else ""
        if "is not installed" in reason:
            report.outcome = "failed"
            report.longrepr = f"skipped in CI, where .ci/run installs what it needs: {reason}"
