# Scalability by the numbers: build and test.
#
#   make book    set up .venv if needed, execute the notebooks (in parallel, cached), build the HTML site
#   make test    set up if needed, then every test (library, notebooks, build, browser), stages side by side
#   make bench   time every speed figure of the book (a clone in /tmp); writes _build/bench.json
#
# Other targets: lab, notebooks, student, pdf, publish, vendor, browser, lint, freeze, clean. See README.md and CONTRIBUTING.md.

SHELL := bash
.SHELLFLAGS := -eo pipefail -c
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
READY  := $(VENV)/.ready
export SCALINGLIB_FRAME_CACHE := $(CURDIR)/_build/frame-cache
# Python may cache compiled code here (some machines set PYTHONDONTWRITEBYTECODE): otherwise pytest rewrites
# and compiles every test module afresh in each of its processes, about 3 s each time.
unexport PYTHONDONTWRITEBYTECODE
# Stages of `make test` that run at once (they are independent; see test-stages below). Three on two cores:
# one more than the cores covers the stages' waits (kernels interrupted, jobs timed out, pages loading);
# four cost about 10% more CPU in all (258 against 235 busy CPU-s), lost to the stages crowding each other.
TEST_JOBS ?= 3
# Hypothesis profile of the property tests (tests/conftest.py): ci (the default) or thorough.
export HYPOTHESIS_PROFILE ?= ci

.PHONY: book test test-stages test-site bench lab notebooks vendor browser lint unit unit-a unit-b nbval site-build site-build-stored screens \
        site-test student student-test lab-test grade publish pdf pdf-test freeze clean

$(READY): requirements.txt pyproject.toml tools/setup_venv.sh tools/lazy_rfc3987.py
	@echo "== setup: creating $(VENV) and installing the pinned requirements (Python 3.11 or newer) =="
	@bash tools/setup_venv.sh "$(PYTHON)" "$(VENV)"

vendor: $(READY)
	@$(BIN)/python tools/vendor.py

# The targets that serve the site's scripts need them fetched first. `make test` fetches them before its
# stages start and passes VENDOR_DEP= down, so no stage waits for a job slot behind that fetch.
VENDOR_DEP ?= vendor

book: $(READY)
	@echo "== book: executing the notebooks (those whose code or library changed, one per core) and building the HTML site =="
	@$(BIN)/python tools/build_book.py

lab: $(READY)
	@$(BIN)/jupyter lab book/

notebooks: $(READY)
	@echo "== notebooks: re-running every notebook and storing its outputs =="
	@$(BIN)/python tools/notebooks.py execute

browser:
	@bash tools/ensure_browser.sh

# Each stage says how long it took; in `make test` its output appears as one block when it ends.
lint: $(READY)
	@SECONDS=0; echo "== lint: ruff =="; \
	$(BIN)/ruff check scalinglib tests tools book/_ext; \
	echo "== lint: CITATION.cff (cffconvert), the introduction's BibTeX and the licence notices =="; \
	$(BIN)/python -m pytest -q -p no:cacheprovider tests/test_citation.py -k "not student_edition"; \
	echo "== lint: passed in $${SECONDS} s =="

# The library's tests in two halves that run side by side in `make test` (each a plain pytest, no xdist:
# a worker would collect every module again, and xdist's per-test traffic costs more than these tests).
# The first half holds the tests that mostly wait (kernels graded, MPI jobs timed out) with some that
# compute; the second, everything else and the doctests.
UNIT_A := tests/test_grade.py tests/test_labs.py tests/test_figures.py tests/test_probe.py \
          tests/test_claims_3_1.py tests/test_roofline.py tests/test_widgets.py tests/test_latency.py \
          tests/test_venv.py
UNIT_PYTEST = $(BIN)/python -m pytest -q -p no:cacheprovider -m "not site" --durations=3

# The grading tests run a hostile class inside the sandbox: bubblewrap is installed first when missing and allowed.
unit-a: $(READY)
	@SECONDS=0; echo "== unit (1 of 2): grading (in its sandbox), the MPI labs, probes, latency, figures and sliders (hypothesis profile $(HYPOTHESIS_PROFILE)) =="; \
	bash tools/ensure_bwrap.sh; \
	$(UNIT_PYTEST) $(UNIT_A); \
	echo "== unit (1 of 2): passed in $${SECONDS} s =="

unit-b: $(READY)
	@SECONDS=0; echo "== unit (2 of 2): the other library and property tests (hypothesis profile $(HYPOTHESIS_PROFILE)) and the doctests =="; \
	$(UNIT_PYTEST) scalinglib tests --doctest-modules --ignore=tests/test_student.py --ignore=tests/test_lab.py \
		--ignore=tests/test_citation.py --ignore=tests/test_pdf.py $(addprefix --ignore=,$(UNIT_A)); \
	echo "== unit (2 of 2): passed in $${SECONDS} s =="

unit: unit-a unit-b

# Slider cells are tagged nbval-ignore-output and every position of their drawing functions is drawn by
# the unit tests: here each slider draws its first frame only (SCALINGLIB_SLIDER_FRAMES, scalinglib/widgets.py).
# The cells that measure this machine are tagged too: here the MPI labs and the probes of 3.7 run two short
# repeats (SCALINGLIB_MEASURE, scalinglib/probe.py); the unit tests run them in full. The kernels start as
# the build's do (IPYTHONDIR: fewer garbage-collector passes, no history file; tools/build_book.py, KERNEL_LINE).
nbval: $(READY)
	@SECONDS=0; echo "== nbval: every notebook re-run and compared with its stored outputs =="; \
	IPYTHONDIR="$$($(BIN)/python tools/build_book.py --kernel-profile)" \
	SCALINGLIB_SLIDER_FRAMES=first SCALINGLIB_MEASURE=quick \
	$(BIN)/python -m pytest -q -p no:cacheprovider --nbval book/ -n 2 --dist loadscope \
		--nbval-sanitize-with tools/nbval-sanitize.cfg; \
	echo "== nbval: passed in $${SECONDS} s =="

site-build: $(READY)
	@echo "== site: building the book with warnings as errors =="
	@$(BIN)/python tools/build_book.py

# make test: nbval re-runs every notebook and matches its stored outputs, so the site is built from
# those outputs (same pages, same warnings-as-errors) without executing everything a second time;
# every page is rendered afresh (--fresh), as in CI, unless the last build (make book or this one) rendered
# every page from the same sources: that site is checked as it is (--keep-full).
STORED_BUILD = SECONDS=0; echo "== site: building the book from the checked outputs, with warnings as errors =="; \
	$(BIN)/python tools/build_book.py --stored-outputs --fresh --keep-full; \
	echo "== site: built in $${SECONDS} s =="

site-build-stored: $(READY) $(VENDOR_DEP)
	@$(STORED_BUILD)

SITE_TEST = SECONDS=0; echo "== site: opening every page in headless Chromium, checking every link, the page weight, axe-core's WCAG 2.1 AA rules and the layout as a phone and a laptop, light and dark =="; \
	bash tools/ensure_browser.sh; \
	$(BIN)/python -m pytest -q -p no:cacheprovider tests/test_site.py tests/test_site_links.py tests/test_a11y.py tests/test_layout.py -m site -rs; \
	$(BIN)/python -m pytest -q -p no:cacheprovider tests/test_site_exercises.py -m site -k "not student" -rs; \
	echo "== site: checked in $${SECONDS} s =="

# the checks of a site already built (make book or make site-build-stored)
site-test: $(READY)
	@$(SITE_TEST)

# full-page screenshots of every page of a built site, as a phone and a laptop, light and dark, for a reviewer
screens: $(READY)
	@bash tools/ensure_browser.sh
	@LAYOUT_SCREENS=all $(BIN)/python -m pytest -q -p no:cacheprovider tests/test_layout.py -m site -rs
	@echo "screens: written to _build/screens/"

# in make test: the stored-output build, then its checks, in one recipe (so one job from the start: this is
# the longest chain of the stages)
test-site: $(READY) $(VENDOR_DEP)
	@$(STORED_BUILD); \
	$(SITE_TEST)

student: $(READY) $(VENDOR_DEP)
	@SECONDS=0; echo "== student: the book without solutions, as HTML and notebooks, in one zip =="; \
	$(BIN)/python tools/student.py; \
	echo "== student: built in $${SECONDS} s =="

student-test: student
	@SECONDS=0; echo "== student: checking that no solution survives, and its exercises answered in its pages (headless Chromium) =="; \
	$(BIN)/python -m pytest -q -p no:cacheprovider tests/test_student.py \
		tests/test_citation.py::test_student_edition_carries_the_licence; \
	bash tools/ensure_browser.sh; \
	$(BIN)/python -m pytest -q -p no:cacheprovider tests/test_site_exercises.py -m site -k student -rs; \
	echo "== student: checked in $${SECONDS} s =="

# exercises in JupyterLab: a section notebook opened in headless Chromium (jupyterlab-myst renders, solutions folded)
lab-test: $(READY)
	@SECONDS=0; echo "== lab: a section notebook in JupyterLab, in headless Chromium =="; \
	bash tools/ensure_browser.sh; \
	$(BIN)/python -m pytest -q -p no:cacheprovider tests/test_lab.py -rs; \
	echo "== lab: checked in $${SECONDS} s =="

# publish the built site to the gh-pages branch of a git remote (URL, path or remote name), with ghp-import:
# make publish REMOTE=git@github.com:you/scalability-book.git
publish: book
	@test -n "$(REMOTE)" || { echo "usage: make publish REMOTE=<git URL, path or remote name> [BRANCH=gh-pages]"; exit 2; }
	@$(BIN)/python tools/publish.py --remote "$(REMOTE)" --branch "$(or $(BRANCH),gh-pages)"

# the chapter as PDFs, printed from the built HTML by headless Chromium (tools/pdf.py): the instructor's
# (solutions in an appendix) and the student's (from the student edition), in dist/
pdf: book student
	@bash tools/ensure_browser.sh
	@SECONDS=0; echo "== pdf: printing the instructor's and the student's PDFs with headless Chromium =="; \
	$(BIN)/python tools/pdf.py; \
	echo "== pdf: printed in $${SECONDS} s =="

# in make test: the PDFs of the site and the student edition the other stages built, then their checks
pdf-test: test-site student-test
	@SECONDS=0; echo "== pdf: printing both PDFs and checking their headings, pages, figures and solutions =="; \
	$(BIN)/python tools/pdf.py; \
	$(BIN)/python -m pytest -q -p no:cacheprovider tests/test_pdf.py; \
	echo "== pdf: checked in $${SECONDS} s =="

# grade a class: make grade SUBMISSIONS=folder/of/notebooks [GRADES=grades] [TIMEOUT=120]
# Every notebook runs in a bubblewrap sandbox (tools/sandbox.py; installed here when missing and allowed).
# Without a sandbox it refuses, unless the code is trusted: UNSAFE_NO_SANDBOX=1 make grade ...
grade: $(READY)
	@test -n "$(SUBMISSIONS)" || { echo "usage: make grade SUBMISSIONS=folder [GRADES=folder] [TIMEOUT=seconds]"; exit 2; }
	@bash tools/ensure_bwrap.sh
	@$(BIN)/python tools/grade.py "$(SUBMISSIONS)" --out "$(or $(GRADES),grades)" --timeout "$(or $(TIMEOUT),120)"

# Independent stages run side by side (the machine's cores are busy while one stage waits on a
# browser or runs one process); -k: every stage reports even when another fails. Add a new stage
# to this list (and its own target) to run it with the others. They start in this order: the longest
# chains first, and nbval (two workers) last, so that both cores stay busy to the end.
test-stages: test-site unit-a unit-b student-test lab-test lint nbval pdf-test

test: $(READY)
	@SECONDS=0; echo "== test: lint, unit, nbval, site, student and lab stages, $(TEST_JOBS) at a time; each stage's output appears when it ends =="; \
	$(BIN)/python tools/vendor.py; \
	$(MAKE) --no-print-directory -k -j$(TEST_JOBS) --output-sync=target test-stages VENDOR_DEP=; \
	echo "== test: all passed in $${SECONDS} s =="

bench: $(READY)
	@$(BIN)/python tools/bench.py

freeze: $(READY)
	@(echo "# Pinned environment for building and testing the book (Python 3.11)."; \
	  echo "# Regenerate after a deliberate upgrade: make freeze"; \
	  $(BIN)/python -m pip freeze --exclude-editable | grep -v -e '^-e' -e '^uv==') > requirements.txt
	@echo "requirements.txt rewritten"

clean:
	rm -rf _build _vendor dist .pytest_cache .hypothesis .ruff_cache
