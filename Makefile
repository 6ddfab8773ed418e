# Understudy: every set-up step a fresh machine needs is here (see README).
SWIFT ?= swift
VENV := .venv

.PHONY: test test-portable test-external check-platforms test-tsan serve build docs deps test-deps bench bench-server bench-har soak check clean fuzz

## test: build and run the whole test suite, Swift Testing and XCTest (installs what the tests need when missing).
test: test-deps
	$(SWIFT) build --build-tests
	@# One run per library, so that each reports in full and either failing fails the target:
	@# Swift Testing first, then XCTest, whose "Executed N tests" line stays the summary CI reads last.
	@$(SWIFT) test --skip-build --disable-xctest; testing=$$?; \
	$(SWIFT) test --skip-build --disable-swift-testing; xctest=$$?; \
	if [ $$testing -ne 0 ]; then echo "error: the Swift Testing suite failed (exit $$testing); its issues are above"; fi; \
	[ $$testing -eq 0 ] && [ $$xctest -eq 0 ]

# The suites that must pass without the C codecs (SPEC 18), and the codec tests that apply there.
PORTABLE_SUITES := UnderstudyURLProtocolTests|UnderstudyXCTestTests|UnderstudyTestingTests|UnderstudyHARTests|UnderstudyServerTests|SwiftPNGCodecTests|ImageResamplerTests|CodecCapabilityTests
PORTABLE_FLAGS := --disable-default-traits -Xswiftc -DUNDERSTUDY_PORTABLE --scratch-path .build-portable

## test-portable: the configuration nearest to Apple platforms' that Linux builds: default traits off (no C codec linked) and the Linux-only speed-ups off (UNDERSTUDY_PORTABLE), built apart in .build-portable; runs the in-process, XCTest, Swift Testing, HAR and server suites there.
test-portable: test-deps check-platforms
	$(SWIFT) build --build-tests $(PORTABLE_FLAGS)
	@if ldd .build-portable/debug/understudy | grep -E 'lib(webp|png|jpeg|turbojpeg|avif|heif|gif)'; then \
		echo "error: the build without default traits links a C codec (above)"; exit 1; fi
	@$(SWIFT) test --skip-build $(PORTABLE_FLAGS) --disable-xctest --filter '$(PORTABLE_SUITES)'; testing=$$?; \
	$(SWIFT) test --skip-build $(PORTABLE_FLAGS) --disable-swift-testing --filter '$(PORTABLE_SUITES)'; xctest=$$?; \
	if [ $$testing -ne 0 ]; then echo "error: the Swift Testing suite failed without the C codecs (exit $$testing); its issues are above"; fi; \
	[ $$testing -eq 0 ] && [ $$xctest -eq 0 ]

## test-external: a package outside the repository that depends on this one by path with default traits off, as a user's would: builds and runs its XCTest and Swift Testing tests (bundle fixtures, StubServerClient, the WebP error), and checks with ldd that its test binary links no C codec.
test-external: test-deps
	@consumer=$${TMPDIR:-/tmp}/understudy-consumer; rm -rf "$$consumer/Tests" "$$consumer/Package.swift"; mkdir -p "$$consumer"; \
	cp -R Tests/ExternalPackage/. "$$consumer/"; \
	echo "Testing $$consumer against $(CURDIR)"; \
	UNDERSTUDY_ROOT="$(CURDIR)" $(SWIFT) build --build-tests --package-path "$$consumer" --scratch-path "$(CURDIR)/.build-external" || exit 1; \
	binary=$$(ls -d "$(CURDIR)"/.build-external/debug/UnderstudyConsumerPackageTests.xctest); \
	if ldd "$$binary" | grep -E 'lib(webp|png|jpeg|turbojpeg|avif|heif|gif)'; then \
		echo "error: $$binary links a C codec (above)"; exit 1; fi; \
	echo "ldd: $$binary links none of libwebp, libpng, libjpeg, libavif, libheif, libgif"; \
	UNDERSTUDY_ROOT="$(CURDIR)" $(SWIFT) test --skip-build --package-path "$$consumer" --scratch-path "$(CURDIR)/.build-external"

## check-platforms: each library product's targets per platform hold no system library (and UnderstudyClient no NIO); no module is imported inside a compile condition; no platform-only C library call (Glibc.send, SOCK_STREAM.rawValue, MSG_NOSIGNAL) outside its platform's branch; no two tracked paths differ only in case (macOS merges them). The checks' own tests run first.
check-platforms:
	python3 scripts/test_platform_checks.py
	python3 scripts/check-product-closures.py
	python3 scripts/check-platform-imports.py Sources Tests
	python3 scripts/check-platform-calls.py Sources Tests
	python3 scripts/check-path-case.py

## test-tsan: the Swift Testing parallel-isolation suite under ThreadSanitizer, built apart in .build-tsan.
test-tsan: deps
	$(SWIFT) build --build-tests --sanitize=thread --scratch-path .build-tsan
	$(SWIFT) test --skip-build --sanitize=thread --scratch-path .build-tsan --disable-xctest --filter ParallelIsolationTests

## serve: serve the demo stubs in Stubs/ on http://127.0.0.1:8080 (origin and forward proxy).
serve: deps
	$(SWIFT) run understudy serve Stubs --port 8080

# The library modules, each with its DocC catalog in Sources/<Module>/<Module>.docc.
DOC_MODULES := Understudy UnderstudyImages UnderstudyURLProtocol UnderstudyXCTest UnderstudyTesting UnderstudyServer UnderstudyHAR UnderstudyClient

## docs: build every library module's DocC documentation into .build/plugins/Swift-DocC/outputs; fails on any DocC warning or a public symbol without a doc comment.
docs: deps
	@if ! command -v python3 >/dev/null 2>&1; then \
		echo "Installing python3 (scripts/check-symbol-docs.py reads the symbol graphs)"; \
		apt-get -o DPkg::Lock::Timeout=900 update && apt-get -o DPkg::Lock::Timeout=900 install -y python3; \
	fi
	$(SWIFT) package generate-documentation $(foreach module,$(DOC_MODULES),--target $(module)) --warnings-as-errors
	python3 scripts/check-symbol-docs.py $(DOC_MODULES)

## build: build the package.
build: deps
	$(SWIFT) build

## check: validate the demo stub files.
check: deps
	$(SWIFT) run understudy check Stubs

## bench: run the benchmarks (release builds, ratios measured side by side).
bench: deps
	bash Benchmarks/run.sh

## bench-server: wrk against understudy serve, nginx-light and WireMock 2.35.1, 304 and 206 rows against nginx, HTTPS rows, h2load over h2c and TLS, real-traffic rows (1,000 URLs, a header varying per request), user-space instructions per request beside nginx by callgrind, then 500 slow-3g clients vs nginx limit_rate, a hazard beside the same bytes from a file: stub, a stub with chance: beside the plain one (about 60 minutes; BENCH_ROWS picks sets: h1, tls, h2, real, instructions, slow, wiremock, hazard, chance, "304 206").
bench-server: deps
	bash Benchmarks/bench-server.sh

## bench-har: understudy replay vs mitmproxy's server replay of a 1,000-image HAR, and the HAR's load time (about 3 minutes).
bench-har: deps
	bash Benchmarks/bench-har.sh

## soak: 200 keep-alive connections for 60 s over every kind of stub, plain, HTTPS and through CONNECT; checks errors, journal and RSS.
soak: deps
	bash Benchmarks/soak.sh

## fuzz: libFuzzer (with AddressSanitizer) on the stub-file loader, HAR reader and WebP/PNG/JPEG/AVIF/HEIC/GIF decoders, FUZZ_SECONDS each (default 300).
fuzz: deps
	bash Fuzz/run.sh

# System libraries, through apt only when pkg-config cannot find them.
deps:
	@if ! command -v pkg-config >/dev/null 2>&1 || ! pkg-config --exists libwebp libwebpdemux libwebpmux libpng; then \
		echo "Installing libwebp-dev libpng-dev pkg-config"; \
		apt-get -o DPkg::Lock::Timeout=900 update && apt-get -o DPkg::Lock::Timeout=900 install -y libwebp-dev libpng-dev pkg-config; \
	fi
	@# libjpeg-turbo: libjpeg-dev is Debian's and Ubuntu's name for its -dev package (libjpeg62-turbo-dev, libjpeg-turbo8-dev).
	@if ! pkg-config --exists libjpeg; then \
		echo "Installing libjpeg-dev (libjpeg-turbo)"; \
		apt-get -o DPkg::Lock::Timeout=900 update && apt-get -o DPkg::Lock::Timeout=900 install -y libjpeg-dev; \
	fi
	@# AVIF, HEIC and GIF (giflib has no pkg-config file on Debian: look for its header).
	@if ! pkg-config --exists libavif libheif || [ ! -f /usr/include/gif_lib.h ]; then \
		echo "Installing libavif-dev libheif-dev libgif-dev"; \
		apt-get -o DPkg::Lock::Timeout=900 update && apt-get -o DPkg::Lock::Timeout=900 install -y libavif-dev libheif-dev libgif-dev; \
	fi

# What the tests use as independent references: cwebp/dwebp/img2webp/webpmux, djpeg/cjpeg, avifenc/avifdec, heif-enc/heif-convert/heif-info, pngcheck, curl, nghttp, openssl, certutil, chromium, Pillow, requests, httpx (HTTP/2), mitmproxy, WireMock.
test-deps: deps
	@if ! command -v cwebp >/dev/null 2>&1 || ! command -v dwebp >/dev/null 2>&1 || ! command -v img2webp >/dev/null 2>&1 || ! command -v pngcheck >/dev/null 2>&1 || ! command -v curl >/dev/null 2>&1; then \
		echo "Installing webp pngcheck curl"; \
		apt-get -o DPkg::Lock::Timeout=900 update && apt-get -o DPkg::Lock::Timeout=900 install -y webp pngcheck curl; \
	fi
	@if ! command -v openssl >/dev/null 2>&1 || ! command -v certutil >/dev/null 2>&1; then \
		echo "Installing openssl libnss3-tools (TLS tests: openssl x509/verify/s_client; certutil puts the CA in Chromium's NSS database)"; \
		apt-get -o DPkg::Lock::Timeout=900 update && apt-get -o DPkg::Lock::Timeout=900 install -y openssl libnss3-tools; \
	fi
	@if ! command -v djpeg >/dev/null 2>&1 || ! command -v cjpeg >/dev/null 2>&1 || ! command -v webpmux >/dev/null 2>&1; then \
		echo "Installing libjpeg-turbo-progs webp (djpeg, cjpeg, webpmux)"; \
		apt-get -o DPkg::Lock::Timeout=900 update && apt-get -o DPkg::Lock::Timeout=900 install -y libjpeg-turbo-progs webp; \
	fi
	@if ! command -v avifdec >/dev/null 2>&1 || ! command -v avifenc >/dev/null 2>&1 || ! command -v heif-convert >/dev/null 2>&1 || ! command -v heif-enc >/dev/null 2>&1; then \
		echo "Installing libavif-bin libheif-examples (avifenc/avifdec, heif-enc/heif-convert/heif-info read and write what the AVIF and HEIC tests check)"; \
		apt-get -o DPkg::Lock::Timeout=900 update && apt-get -o DPkg::Lock::Timeout=900 install -y libavif-bin libheif-examples; \
	fi
	@if ! command -v nghttp >/dev/null 2>&1; then \
		echo "Installing nghttp2-client (HTTP2FaultPhaseTests read nghttp's frame log)"; \
		apt-get -o DPkg::Lock::Timeout=900 update && apt-get -o DPkg::Lock::Timeout=900 install -y nghttp2-client; \
	fi
	@if ! command -v chromium >/dev/null 2>&1; then \
		echo "Installing chromium (ChromiumTests load a stubbed page in it; ChromiumHARTests record a HAR with it)"; \
		apt-get -o DPkg::Lock::Timeout=900 update && apt-get -o DPkg::Lock::Timeout=900 install -y chromium; \
	fi
	@if ! command -v python3 >/dev/null 2>&1 || ! python3 -c "import venv, ensurepip" >/dev/null 2>&1; then \
		echo "Installing python3 python3-venv (the tests' Python tools live in $(VENV))"; \
		apt-get -o DPkg::Lock::Timeout=900 update && apt-get -o DPkg::Lock::Timeout=900 install -y python3 python3-venv; \
	fi
	@if ! $(VENV)/bin/python -c "import PIL, requests" >/dev/null 2>&1 || [ ! -x $(VENV)/bin/mitmdump ]; then \
		echo "Creating $(VENV) with Pillow, requests and mitmproxy"; \
		python3 -m venv $(VENV) && $(VENV)/bin/pip install --quiet 'Pillow>=10' 'requests>=2.28' 'mitmproxy>=10.1'; \
	fi
	@if ! command -v java >/dev/null 2>&1; then \
		echo "Installing openjdk-17-jre-headless (WireMockDifferentialTests run WireMock itself)"; \
		apt-get -o DPkg::Lock::Timeout=900 update && apt-get -o DPkg::Lock::Timeout=900 install -y openjdk-17-jre-headless; \
	fi
	@if ! ls $(VENV)/lib/python3*/site-packages/wiremock/server/wiremock-standalone-2.35.1.jar >/dev/null 2>&1; then \
		echo "Installing wiremock into $(VENV) (its PyPI package ships WireMock 2.35.1's standalone jar)"; \
		[ -x $(VENV)/bin/pip ] || python3 -m venv $(VENV); \
		$(VENV)/bin/pip install --quiet 'wiremock==2.7.0'; \
	fi
	@if ! $(VENV)/bin/python -c "import httpx, h2" >/dev/null 2>&1; then \
		echo "Installing httpx[http2] into $(VENV) (HTTP2ServerTests talk h2c with it; h11 kept within mitmproxy's pin)"; \
		$(VENV)/bin/pip install --quiet 'httpx[http2]>=0.27' 'h11<=0.14.0'; \
	fi

clean:
	rm -rf .build .build-tsan .build-portable .build-external $(VENV)
