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
## module fixtures: one service, one browser). Most of the suite waits on services, browsers and
## the simulated table rather than the CPU: 492-526 s in two on 2 cores (1,996 tests, a clean clone); 611-615 s
## (2,011 tests, summed test time 1,176 s against 948: the VM or the new whole-hand page tests, not told apart). Three workers on
## 2 cores took 428-477 s but each test ~19% longer (more load on every timing): kept at one a core
## (the files of a few long tests go first: tests/conftest.py LONG_FILES).
test: $(STAMP)
	$(VENV)/bin/python -m pytest -n auto --maxprocesses 4 --dist loadfile $(ARGS)

## Benchmarks: each prints its figures and a final JSON line
bench: $(STAMP)
	@for b in bench/*.py; do echo "== $$b"; $(VENV)/bin/python $$b || exit 1; done

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis data
