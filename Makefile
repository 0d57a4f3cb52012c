# Scalability by the numbers: build and test.
#
#   make book    set up .venv if needed, execute the notebooks, build the HTML site
#   make test    set up if needed, then every test (library, notebooks, build, browser)
#
# Other targets: lab, notebooks, student, vendor, browser, lint, freeze, clean. See README.md.

SHELL := bash
.SHELLFLAGS := -eo pipefail -c
PYTHON ?= python3
VENV   := .venv
# pip on some machines warns about missing extra index folders on every package; hide only that line
QUIET_PIP := { grep -v "is ignored: it is neither a file nor a directory" || true; }
BIN    := $(VENV)/bin
READY  := $(VENV)/.ready
export SCALINGLIB_FRAME_CACHE := $(CURDIR)/_build/frame-cache

.PHONY: book test lab notebooks vendor browser lint unit nbval site-build site-build-stored site-test student student-test freeze clean

$(READY): requirements.txt pyproject.toml
	@echo "== setup: creating $(VENV) and installing the pinned requirements (about a minute the first time) =="
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements.txt 2>&1 | $(QUIET_PIP)
	@$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps -e . 2>&1 | $(QUIET_PIP)
	@$(BIN)/python -c "import scalinglib, myst_nb, nbval, playwright"
	@touch $(READY)
	@echo "== setup: $(VENV) is ready ($$($(BIN)/python --version), scalinglib installed in editable mode) =="

vendor: $(READY)
	@$(BIN)/python tools/vendor.py

book: $(READY)
	@echo "== book: executing notebooks (cached) and building the HTML site =="
	@$(BIN)/python tools/build_book.py

lab: $(READY)
	@$(BIN)/jupyter lab book/

notebooks: $(READY)
	@echo "== notebooks: re-running every notebook and storing its outputs =="
	@$(BIN)/python tools/notebooks.py execute

browser:
	@bash tools/ensure_browser.sh

lint: $(READY)
	@echo "== lint: ruff =="
	@$(BIN)/ruff check scalinglib tests tools book/_ext

unit: $(READY)
	@echo "== unit: library tests, property tests and doctests =="
	@$(BIN)/python -m pytest -q -p no:cacheprovider scalinglib tests --doctest-modules -m "not site" -n 2 \
		--ignore=tests/test_student.py

nbval: $(READY)
	@echo "== nbval: every notebook re-run and compared with its stored outputs =="
	@$(BIN)/python -m pytest -q -p no:cacheprovider --nbval book/ -n 2 --dist loadscope \
		--nbval-sanitize-with tools/nbval-sanitize.cfg

site-build: $(READY)
	@echo "== site: building the book with warnings as errors =="
	@$(BIN)/python tools/build_book.py

# make test: nbval has just re-run every notebook and matched its stored outputs, so the site is built
# from those outputs (same pages, same warnings-as-errors) without executing everything a second time.
site-build-stored: $(READY)
	@echo "== site: building the book from the checked outputs, with warnings as errors =="
	@$(BIN)/python tools/build_book.py --stored-outputs

site-test: $(READY)
	@echo "== site: opening every page in headless Chromium (screenshots in _build/screens/) =="
	@bash tools/ensure_browser.sh
	@$(BIN)/python -m pytest -q -p no:cacheprovider tests/test_site.py tests/test_site_links.py tests/test_layout.py -m site -rs

student: $(READY)
	@echo "== student: the book without solutions, as HTML and notebooks, in one zip =="
	@$(BIN)/python tools/student.py

student-test: student
	@echo "== student: checking that no solution survives =="
	@$(BIN)/python -m pytest -q -p no:cacheprovider tests/test_student.py

test: lint unit nbval site-build-stored site-test student-test
	@echo "== test: all passed =="

freeze: $(READY)
	@(echo "# Pinned environment for building and testing the book (Python 3.11)."; \
	  echo "# Regenerate after a deliberate upgrade: make freeze"; \
	  $(BIN)/python -m pip freeze --exclude-editable | grep -v '^-e') > requirements.txt
	@echo "requirements.txt rewritten"

clean:
	rm -rf _build _vendor dist .pytest_cache .hypothesis .ruff_cache
