# The two commands of the README, plus what they need. Each target sets itself up.
.PHONY: demo test bench setup pi hub clean

VENV := .venv
RUNTIME := pyproject.toml apt-packages-runtime.txt scripts/bootstrap.sh
## Set-up runs again when what it installs from changes, told by content (a digest in the stamp's name), never by
## file times: a Pi whose clock was behind at `git pull` had the new files older than its stamp and skipped them.
stamp = $(VENV)/.installed$(1)-$(shell cat $(2) | sha256sum | cut -c1-16)
STAMP := $(call stamp,,$(RUNTIME) apt-packages-hub.txt apt-packages.txt)
PI_STAMP := $(call stamp,-pi,$(RUNTIME))
HUB_STAMP := $(call stamp,-hub,$(RUNTIME) apt-packages-hub.txt)

$(STAMP):
	BOOTSTRAP_STAMP=$@ ./scripts/bootstrap.sh

setup: $(STAMP)

## A table's Pi: only what the controller runs on (no browser, fonts, tile art or test packages), then
## `tablectl install-service` (README "Pointing it at a real table")
pi: $(PI_STAMP)

$(PI_STAMP):
	BOOTSTRAP_STAMP=$@ ./scripts/bootstrap.sh pi

## A tournament's hub machine: the same, and the MQTT broker (mosquitto)
hub: $(HUB_STAMP)

$(HUB_STAMP):
	BOOTSTRAP_STAMP=$@ ./scripts/bootstrap.sh hub

## Simulated table + controller + display on http://127.0.0.1:8080/ (Ctrl-C stops it)
demo: $(STAMP)
	$(VENV)/bin/tablectl demo $(ARGS)

## The whole test suite in one worker more than the cores (at most 4), each test file on one worker (its module
## fixtures: one service, one browser). The browser tests drive Debian's chromium-headless-shell (tests/browsers.py):
## a page opened and logged in costs the machine 0.82 CPU-seconds there against 2.17 in the full chromium. On 2
## cores (this VM, 2026-12-02), 2,041 tests from a clean clone: 305-402 s with 3 workers, 462 s with 2 (654-698 s the
## day before in the full chromium); warm, 371-415 s with 3, 489 s with 2. With the browser's share down, 30% of
## the cores sat idle under 2 workers (tests waiting on a link's latency, a protocol's timeouts, a proxy), and a
## third worker fills it (each test ~23% longer). Later the same day, 2,355 tests from a clean clone with 3 workers:
## 372-425 s; a session later, 2,566 tests: 382 s (430 s in a warm tree); the next, 2,753 tests: 491 s. The files
## of a few long tests go first: tests/conftest.py LONG_FILES.
WORKERS := $(shell n=$$(nproc 2>/dev/null || echo 1); echo $$(( n + 1 < 4 ? n + 1 : 4 )))

## Python writes its bytecode (.pyc, and pytest's rewritten test modules) even where the environment says not to
## (PYTHONDONTWRITEBYTECODE=1 on these VMs): the processes the tests start (tablectl run, hub, demo, vision) each
## compiled the project from source again (0.72-0.94 CPU-s to import the service against 0.53): tests/integration
## and tests/tournament from a clean clone took 186.7 CPU-s with it set, 151.5 without (2026-12-02).
test: $(STAMP)
	PYTHONDONTWRITEBYTECODE= $(VENV)/bin/python -m pytest -n $(WORKERS) --dist loadfile $(ARGS)

## Benchmarks: each prints its figures and a final JSON line
bench: $(STAMP)
	@for b in bench/*.py; do echo "== $$b"; $(VENV)/bin/python $$b || exit 1; done

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis data
