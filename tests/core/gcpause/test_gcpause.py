"""The collector held off while designs are built, by several threads at once."""

from __future__ import annotations

import gc
import threading

from designer.core.gcpause import collector_paused


def test_overlapping_holders_keep_the_collector_off_until_the_last_leaves():
    assert gc.isenabled()
    inside, release = threading.Event(), threading.Event()

    def other():
        with collector_paused():
            inside.set()
            release.wait(timeout=30)

    t = threading.Thread(target=other)
    with collector_paused():
        t.start()
        assert inside.wait(timeout=30)
        assert not gc.isenabled()
    assert not gc.isenabled()  # the other thread still builds
    release.set()
    t.join(timeout=30)
    assert gc.isenabled()


def test_a_collector_switched_off_before_stays_off():
    gc.disable()
    try:
        with collector_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
