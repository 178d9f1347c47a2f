"""The Chromium the browser tests drive, named once (tests/conftest.py's `chromium`, the files that launch their own).

Debian's `chromium-headless-shell` when it is installed (`apt-packages.txt`): the same Chromium release and Blink
as Debian's `chromium`, built without the desktop browser's window, tab strip and profile UI: what Playwright itself
runs for a headless test. A page opened in a context of its own and logged in cost 0.82 CPU-seconds of the whole
machine there against 2.17 in `/usr/bin/chromium` (0.63 s against 1.23 s of wall time; measured 2026-12-02, eight
opens each), and the browser tests are most of the suite's time on 2 cores. `TEST_CHROMIUM=/usr/bin/chromium`
runs them in the full browser instead (the benches always drive it: a referee's tablet runs a full browser).
"""

from __future__ import annotations

import os
import shutil

#: Debian's full browser, the one a person sees (the benches drive it)
FULL_CHROMIUM = "/usr/bin/chromium"
#: Debian's headless shell of the same Chromium
HEADLESS_SHELL = "/usr/bin/chromium-headless-shell"


def browser_for_tests(environ: dict[str, str] | None = None, installed: str | None = None) -> str:
    """The browser executable the tests launch: `TEST_CHROMIUM` when set, else the headless shell when
    installed, else the full browser (a machine set up before the shell was in apt-packages.txt)."""
    env = os.environ if environ is None else environ
    if env.get("TEST_CHROMIUM"):
        return env["TEST_CHROMIUM"]
    shell = shutil.which(HEADLESS_SHELL) if installed is None else installed
    return shell or FULL_CHROMIUM


CHROMIUM = browser_for_tests()
#: As every browser test launches it: no GPU, QUIC, first-run page or background fetches to wait on in a sandbox
#: without a network
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
