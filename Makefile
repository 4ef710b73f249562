# Two commands set everything up on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
DEMO_VAULT ?= demo-vault

.PHONY: demo test chromium labextension-deps bench first-hour eval eval-llm lab labextension clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# Stamps keep re-runs fast; they are redone whenever pyproject.toml changes.
# torch is named in the same pip command as the package: that keeps pip on the CPU build
# (alone, sentence-transformers would pull a multi-GB CUDA build).
TORCH := "torch==2.13.0"
# The JupyterLab extension ships prebuilt in engram_lab/labextension/: installs skip the Node build
# (`make labextension` rebuilds it from labextension/).
export SKIP_JUPYTER_BUILDER := 1

# An editable install copies the prebuilt extension; a link makes JupyterLab use the folder a rebuild writes.
LINK_LABEXTENSION = ln -sfn "$(CURDIR)/engram_lab/labextension" "$(VENV)/share/jupyter/labextensions/engram-lab.tmp" && \
	rm -rf "$(VENV)/share/jupyter/labextensions/engram-lab" && \
	mv "$(VENV)/share/jupyter/labextensions/engram-lab.tmp" "$(VENV)/share/jupyter/labextensions/engram-lab"

# The runtime includes JupyterLab (the `lab` extra), so the venv `make demo` leaves also runs `make lab`.
# A current test install already holds all of it (its extra names JupyterLab too): then pip is skipped.
$(VENV)/.runtime-installed: pyproject.toml | $(BIN)/python
	@if [ $(VENV)/.test-installed -nt pyproject.toml ]; then echo "the test install is current and holds the runtime"; \
	else $(BIN)/python -m pip install --quiet $(TORCH) -e ".[lab]"; fi
	$(LINK_LABEXTENSION)
	touch $@

$(VENV)/.test-installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet $(TORCH) -e ".[test]"
	$(LINK_LABEXTENSION)
	touch $@

demo: $(VENV)/.runtime-installed
	@[ -d "$(DEMO_VAULT)" ] || $(BIN)/engram sample-vault "$(DEMO_VAULT)"
	$(BIN)/engram index "$(DEMO_VAULT)"
	$(BIN)/engram status "$(DEMO_VAULT)"
	$(BIN)/engram search "$(DEMO_VAULT)" --queries engram_lab/sample_queries.jsonl --k 3

# The browser tests drive Debian's chromium (never a downloaded browser): installed here when
# missing and we may (root with apt-get); otherwise those tests skip and say why.
chromium:
	@command -v chromium >/dev/null 2>&1 || [ "$$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1 || \
	  { echo "installing Debian chromium for the browser tests"; apt-get update -qq && apt-get install -y -qq chromium >/dev/null; } || \
	  echo "make test: could not install chromium; the browser tests will be skipped"

# The TypeScript unit tests need the extension's Node dev tools: installed when Node is there.
labextension-deps:
	@if command -v node >/dev/null 2>&1 && [ ! -d labextension/node_modules ]; then \
	  (cd labextension && PATH="$(CURDIR)/$(BIN):$$PATH" jlpm install >/dev/null) || echo "make test: jlpm install failed; TypeScript tests will be skipped"; fi

# pytest exits 5 when it collected no test: that must not pass as green.
test: $(VENV)/.test-installed chromium labextension-deps
	@$(BIN)/python -m pytest; rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "make test: no tests ran" >&2; exit 1; fi; exit $$rc

SHARED_DATA ?= ../shared/data/musique-dev
RUST_RFCS ?= ../shared/data/rust-rfcs

bench: $(VENV)/.test-installed
	$(BIN)/python -m benchmarks.scan_bench --notes 10000
	$(BIN)/python -m benchmarks.index_bench synthetic --notes 10000
	$(BIN)/python -m benchmarks.ppr_bench
	$(BIN)/python -m benchmarks.resolution_bench quality --notes 1500
	$(BIN)/python -m benchmarks.resolution_bench scale --entities 100000
	$(BIN)/python -m benchmarks.query_bench --notes 10000
	$(BIN)/python -m benchmarks.startup_bench --notes 300
	$(BIN)/python -m benchmarks.edit_bench --notes 300
	$(BIN)/python -m benchmarks.checkpoint_bench
	@if command -v node >/dev/null; then $(BIN)/python -m benchmarks.panel_bench; else echo "make bench: node not found; panel layout benchmark skipped"; fi
	@if [ -f "$(SHARED_DATA)/corpus.json" ]; then $(BIN)/python -m benchmarks.index_bench musique --corpus "$(SHARED_DATA)/corpus.json"; \
	else echo "make bench: $(SHARED_DATA) not found; MuSiQue index benchmark skipped"; fi

# Issue 21's scripted first hour in JupyterLab (chromium) on a copy of rust-rfcs: each step's wall time and a
# screenshot in .bench/first-hour. It seeds the copy with the embedding cache `make eval` leaves, when there is one
# (about a minute then; cold, the index step alone is ~25 minutes on 2 cores); skips when rust-rfcs is absent.
FIRST_HOUR_CACHE ?= .bench/eval-rust-rfcs/vault/.engram/vectors/cache.sqlite
first-hour: $(VENV)/.test-installed
	$(BIN)/python -m benchmarks.first_hour --vault "$(RUST_RFCS)/vault" --out .bench/first-hour \
		$(if $(wildcard $(FIRST_HOUR_CACHE)),--warm-cache "$(FIRST_HOUR_CACHE)")

# Both development sets: a real vault (rust-rfcs) and MuSiQue dev with the offline heuristic extractor and with
# imported GPT-3.5 triples. Every retrieval default is chosen on both at once.
eval: $(VENV)/.test-installed
	$(BIN)/engram eval contamination --out .bench/eval-contamination
	@if [ ! -f "$(SHARED_DATA)/questions.json" ] && [ ! -f "$(RUST_RFCS)/questions.jsonl" ]; then \
		echo "make eval: neither $(SHARED_DATA) nor $(RUST_RFCS) found; nothing to evaluate" >&2; exit 1; fi
	@if [ -f "$(RUST_RFCS)/questions.jsonl" ]; then $(BIN)/engram eval vault --vault "$(RUST_RFCS)/vault" \
		--questions "$(RUST_RFCS)/questions.jsonl" --out .bench/eval-rust-rfcs; else echo "make eval: $(RUST_RFCS) not found; skipped"; fi
	@if [ -f "$(SHARED_DATA)/questions.json" ]; then \
		$(BIN)/engram eval musique --questions "$(SHARED_DATA)/questions.json" --corpus "$(SHARED_DATA)/corpus.json" --out .bench/eval-heuristic && \
		$(BIN)/engram eval musique --questions "$(SHARED_DATA)/questions.json" --corpus "$(SHARED_DATA)/corpus.json" \
			--openie "$(SHARED_DATA)/openie-gpt-3.5-turbo-1106.json" --out .bench/eval-openie; \
	else echo "make eval: $(SHARED_DATA) not found; MuSiQue skipped"; fi

# With a model reachable: `make eval-llm EVAL_CONFIG=engram.toml` ([retrieval] fact_filter = "llm" and its endpoint).
eval-llm: $(VENV)/.test-installed
	@if [ -z "$(EVAL_CONFIG)" ]; then echo "make eval-llm: set EVAL_CONFIG to an engram.toml with [retrieval] fact_filter = \"llm\"" >&2; exit 1; fi
	$(BIN)/engram eval musique --questions "$(SHARED_DATA)/questions.json" --corpus "$(SHARED_DATA)/corpus.json" \
		--openie "$(SHARED_DATA)/openie-gpt-3.5-turbo-1106.json" --config "$(EVAL_CONFIG)" \
		--modes full,no-fact-filter,hipporag2 --out .bench/eval-openie-llm

# JupyterLab on this folder, its sidebar and notebook 01 on the demo vault (created and indexed when missing;
# an index run on an indexed vault takes a second or two).
DEMO_VAULT_PATH = $(abspath $(DEMO_VAULT))
LAB_NOTEBOOK ?= notebooks/01-quickstart.ipynb
LAB_ARGS ?=  # e.g. --no-browser --port 8890
# Jupyter refuses root without --allow-root; a fresh container is often root.
ALLOW_ROOT = $(shell [ "$$(id -u)" = 0 ] && echo --allow-root)
lab: $(VENV)/.runtime-installed
	@[ -d "$(DEMO_VAULT)" ] || $(BIN)/engram sample-vault "$(DEMO_VAULT)"
	$(BIN)/engram index "$(DEMO_VAULT)" --quiet
	ENGRAM_DEMO_VAULT="$(DEMO_VAULT_PATH)" $(BIN)/jupyter lab --ServerApp.root_dir="$(CURDIR)" --EngramServer.vault="$(DEMO_VAULT_PATH)" \
		--LabApp.default_url="/lab/tree/$(LAB_NOTEBOOK)" $(ALLOW_ROOT) $(LAB_ARGS)

labextension: $(VENV)/.test-installed
	cd labextension && PATH="$(CURDIR)/$(BIN):$$PATH" jlpm install && PATH="$(CURDIR)/$(BIN):$$PATH" jlpm build && PATH="$(CURDIR)/$(BIN):$$PATH" jlpm test

clean:
	rm -rf $(VENV) $(DEMO_VAULT) .bench build dist
