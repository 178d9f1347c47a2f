"""Which Chromium the browser tests launch (tests/browsers.py)."""

from __future__ import annotations

from tests.browsers import FULL_CHROMIUM, HEADLESS_SHELL, browser_for_tests


def test_the_headless_shell_when_installed_the_full_browser_otherwise_and_the_callers_choice_first() -> None:
    assert browser_for_tests({}, installed=HEADLESS_SHELL) == HEADLESS_SHELL
    assert browser_for_tests({}, installed="") == FULL_CHROMIUM  # a machine set up before the shell was listed
    assert browser_for_tests({"TEST_CHROMIUM": FULL_CHROMIUM}, installed=HEADLESS_SHELL) == FULL_CHROMIUM
    assert browser_for_tests({"TEST_CHROMIUM": ""}, installed=HEADLESS_SHELL) == HEADLESS_SHELL
