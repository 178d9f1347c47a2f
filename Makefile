# The two commands of the README, plus what they need. Each target sets itself up.
.PHONY: demo test bench setup pi hub clean

VENV := .venv
STAMP := $(VENV)/.installed
RUNTIME := pyproject.toml apt-packages-runtime.txt scripts/bootstrap.sh

$(STAMP): $(RUNTIME) apt-packages-hub.txt apt-packages.txt
	./scripts/bootstrap.sh

setup: $(STAMP)

## A table's Pi: only what the controller runs on (no browser, fonts, tile art or test packages), then
## `tablectl install-service` (README "Pointing it at a real table")
pi: $(VENV)/.installed-pi

$(VENV)/.installed-pi: $(RUNTIME)
	./scripts/bootstrap.sh pi

## A tournament's hub machine: the same, and the MQTT broker (mosquitto)
hub: $(VENV)/.installed-hub

$(VENV)/.installed-hub: $(RUNTIME) apt-packages-hub.txt
	./scripts/bootstrap.sh hub

## Simulated table + controller + display on http://127.0.0.1:8080/ (Ctrl-C stops it)
demo: $(STAMP)
	$(VENV)/bin/tablectl demo $(ARGS)

## The whole test suite, one worker a core (at most 4), each test file on one worker (its
## module fixtures: one service, one browser). On 2 cores: 2,040 tests in 654-698 s from a clean clone (this VM,
## 2026-12-02; 611-615 s for 2,011 the day before). The suite is CPU-bound there: of 1,402 core-seconds in a
## 679 s run, Chromium took 442, the test workers 362, the kernel's DAMON (kdamond) 316, and 279 were idle;
## three workers ran each test ~36% longer (626 s): kept at one a core (the files of a few long tests go
## first: tests/conftest.py LONG_FILES). A Chromium page costs ~0.6 CPU-seconds to open.
test: $(STAMP)
	$(VENV)/bin/python -m pytest -n auto --maxprocesses 4 --dist loadfile $(ARGS)

## Benchmarks: each prints its figures and a final JSON line
bench: $(STAMP)
	@for b in bench/*.py; do echo "== $$b"; $(VENV)/bin/python $$b || exit 1; done

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis data
