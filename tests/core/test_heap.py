"""reprolab.run.heap: a CPU run fixes glibc's heap thresholds unless the user's environment sets them."""

from __future__ import annotations

import ctypes
import ctypes.util
import sys

import pytest
from omegaconf import OmegaConf

from reprolab.run import heap
from reprolab.run.device import apply_device_settings


class FakeLibc:
    def __init__(self):
        self.calls = []

    def mallopt(self, option, value):
        self.calls.append((option, value))
        return 1


@pytest.fixture
def libc(monkeypatch):
    fake = FakeLibc()
    monkeypatch.setattr(ctypes, "CDLL", lambda name: fake)
    for name in heap.USER_SETTINGS:
        monkeypatch.delenv(name, raising=False)
    return fake


def test_cpu_device_settings_fix_the_mmap_and_trim_thresholds(libc):
    apply_device_settings(OmegaConf.create({"accelerator": "cpu"}))
    assert libc.calls == [(-3, 32 * 2**20), (-1, 256 * 2**20)]


def test_a_gpu_run_and_the_users_own_setting_are_left_alone(libc, monkeypatch):
    apply_device_settings(OmegaConf.create({"accelerator": "gpu"}))
    monkeypatch.setenv("MALLOC_TRIM_THRESHOLD_", "0")
    assert heap.keep_freed_memory() is False and libc.calls == []


def test_without_glibcs_mallopt_nothing_changes(monkeypatch):
    for name in heap.USER_SETTINGS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(ctypes, "CDLL", lambda name: object())
    assert heap.keep_freed_memory() is False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt is Linux's")
def test_glibc_accepts_the_thresholds(monkeypatch):
    for name in heap.USER_SETTINGS:
        monkeypatch.delenv(name, raising=False)
    assert heap.keep_freed_memory() is True


def test_the_c_library_is_looked_up_once_a_process(libc, monkeypatch):
    lookups = []
    monkeypatch.setattr(ctypes.util, "find_library", lambda name: lookups.append(name) or "libc.so.6")
    heap._libc_name.cache_clear()
    for _ in range(3):
        apply_device_settings(OmegaConf.create({"accelerator": "cpu"}))
    assert lookups == ["c"] and len(libc.calls) == 6
