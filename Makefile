# Understudy: every set-up step a fresh machine needs is here (see README).
SWIFT ?= swift
VENV := .venv

.PHONY: test serve build deps test-deps bench bench-server bench-har soak check clean fuzz

## test: build and run the whole test suite (installs what the tests need when missing).
test: test-deps
	$(SWIFT) build --build-tests
	@# The suite is XCTest only; without this flag an empty Swift Testing run prints the last line.
	$(SWIFT) test --skip-build --disable-swift-testing

## serve: serve the demo stubs in Stubs/ on http://127.0.0.1:8080 (origin and forward proxy).
serve: deps
	$(SWIFT) run understudy serve Stubs --port 8080

## build: build the package.
build: deps
	$(SWIFT) build

## check: validate the demo stub files.
check: deps
	$(SWIFT) run understudy check Stubs

## bench: run the benchmarks (release builds, ratios measured side by side).
bench: deps
	bash Benchmarks/run.sh

## bench-server: wrk against understudy serve, nginx-light and WireMock 2.35.1, then h2load over HTTP/2 against understudy and nginx-light (about 13 minutes; BENCH_ROWS=h1 or h2 for one set).
bench-server: deps
	bash Benchmarks/bench-server.sh

## bench-har: understudy replay vs mitmproxy's server replay of a 1,000-image HAR, and the HAR's load time (about 3 minutes).
bench-har: deps
	bash Benchmarks/bench-har.sh

## soak: 200 keep-alive connections for 60 s over every kind of stub; checks errors, journal and RSS.
soak: deps
	bash Benchmarks/soak.sh

## fuzz: libFuzzer (with AddressSanitizer) on the stub-file loader, HAR reader and WebP/PNG decoders, FUZZ_SECONDS each (default 300).
fuzz: deps
	bash Fuzz/run.sh

# System libraries, through apt only when pkg-config cannot find them.
deps:
	@if ! command -v pkg-config >/dev/null 2>&1 || ! pkg-config --exists libwebp libwebpdemux libpng; then \
		echo "Installing libwebp-dev libpng-dev pkg-config"; \
		apt-get update && apt-get install -y libwebp-dev libpng-dev pkg-config; \
	fi

# What the tests use as independent references: cwebp/dwebp/img2webp, pngcheck, curl, chromium, Pillow, mitmproxy, httpx (HTTP/2).
test-deps: deps
	@if ! command -v cwebp >/dev/null 2>&1 || ! command -v dwebp >/dev/null 2>&1 || ! command -v img2webp >/dev/null 2>&1 || ! command -v pngcheck >/dev/null 2>&1 || ! command -v curl >/dev/null 2>&1; then \
		echo "Installing webp pngcheck curl"; \
		apt-get update && apt-get install -y webp pngcheck curl; \
	fi
	@if ! command -v chromium >/dev/null 2>&1; then \
		echo "Installing chromium (ChromiumTests load a stubbed page in it; ChromiumHARTests record a HAR with it)"; \
		apt-get update && apt-get install -y chromium; \
	fi
	@if ! $(VENV)/bin/python -c "import PIL" >/dev/null 2>&1 || [ ! -x $(VENV)/bin/mitmdump ]; then \
		echo "Creating $(VENV) with Pillow and mitmproxy"; \
		python3 -m venv $(VENV) && $(VENV)/bin/pip install --quiet 'Pillow>=10' 'mitmproxy>=10.1'; \
	fi
	@if ! $(VENV)/bin/python -c "import httpx, h2" >/dev/null 2>&1; then \
		echo "Installing httpx[http2] into $(VENV) (HTTP2ServerTests talk h2c with it; h11 kept within mitmproxy's pin)"; \
		$(VENV)/bin/pip install --quiet 'httpx[http2]>=0.27' 'h11<=0.14.0'; \
	fi

clean:
	rm -rf .build $(VENV)
