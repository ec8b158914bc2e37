# Switchyard: `make run` starts the example app, `make test` runs the whole suite, `make bench` the benchmarks,
# `make soak` the memory soak test.
SWIFT ?= swift
DEB_PACKAGES := pkg-config libyaml-dev libcurl4-openssl-dev libssl-dev libsqlite3-dev libmicrohttpd-dev libpcre2-dev zlib1g-dev libpq-dev
# Real peers the tests start on loopback (PostgreSQL for the store's third engine, a browser, an HTTP/2 server, firebase-admin in a venv) and the benchmarks' load and peers.
TEST_PACKAGES := openssl postgresql chromium nghttp2-server nghttp2-client nginx-light python3-venv python3-pymongo node-mongodb libmongoc-dev
BENCH_PACKAGES := wrk
CONFIG ?= .
FUZZ_SECONDS ?= 20
# The soak test: clients and seconds of load on the example app, and the RSS (MB) the server must stay under
# through the load and the triggers' catch-up. `make test` runs a short form of it on the debug build.
SOAK_CLIENTS ?= 64
SOAK_SECONDS ?= 60
SOAK_BOUND_MB ?= 100
# The trigger failover test (ServeTriggerFailoverTests): how many times it kills the trigger's holder in `make soak`
# (`make test` runs its default, 3).
SOAK_FAILOVER_ROUNDS ?= 20
# The HTTP surface fuzzer (HTTPSurfaceFuzzTests): its run within `make test`, and `make fuzz`'s longer one.
HTTP_FUZZ_SECONDS ?= 30
HTTP_FUZZ_LONG_SECONDS ?= 600
# The wire protocol decoder's fuzz test: its cases in `make test` are the test's default; `make fuzz` runs these.
WIRE_FUZZ_LONG_CASES ?= 2000000
# PyPI's pymongo for the wire protocol tests (MongoWireTests make it too when it is missing).
PYMONGO_VERSION ?= 4.10.1
# SwiftPM commands run once more when SwiftPM itself is killed by a signal (see the script).
SWIFTPM = Scripts/swiftpm $(SWIFT)

.PHONY: deps build run test bench fuzz soak format mongowire-venv

# Installs the Debian packages the C library targets link against, when any is missing.
deps:
	@missing=$$(for p in $(DEB_PACKAGES) $(EXTRA_PACKAGES); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		if [ "$$(id -u)" = 0 ]; then \
			echo "installing: $$missing"; \
			apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null || exit 1; \
		else \
			echo "missing Debian packages; run:"; echo "  sudo apt-get install -y $$missing"; exit 1; \
		fi; \
	fi

# pymongo 4 from PyPI in a venv under .build, the modern driver the wire protocol tests run beside Debian's 3.11.
mongowire-venv:
	@.build/mongowire-venv/bin/python -c "import sys, pymongo; sys.exit(pymongo.version != '$(PYMONGO_VERSION)')" 2>/dev/null || \
		{ python3 -m venv --clear .build/mongowire-venv && .build/mongowire-venv/bin/pip install --quiet --disable-pip-version-check pymongo==$(PYMONGO_VERSION); }

build: deps
	$(SWIFTPM) build

# The example app's seed data (books, a registered reader with a device and favourites), imported only into a data
# directory that has no store yet, so a newcomer sees the flows at once and later runs keep their data.
SEED ?= $(CONFIG)/seed
run: build
	$(SWIFT) run switchyard serve --config $(CONFIG) $$(if [ -d $(SEED) ] && [ ! -e $(CONFIG)/.switchyard/store.sqlite ]; then echo --import $(SEED); fi)

# Each fuzzer for a short bounded run (a crash fails the build; `make fuzz` runs longer), then the suite, whose
# HTTPSurfaceFuzzTests fuzz the served example app's HTTP surfaces for HTTP_FUZZ_SECONDS.
test: EXTRA_PACKAGES = $(TEST_PACKAGES)
test: deps mongowire-venv
	Fuzz/run.sh ejson $(FUZZ_SECONDS)
	Fuzz/run.sh bson $(FUZZ_SECONDS)
	$(SWIFTPM) build --build-tests
	# The store's suite on its three engines (with a PostgreSQL server of its own) runs before the rest: together
	# on two cores, their load stretched the served tests past their time limits.
	$(SWIFTPM) test --skip-build --filter 'DocumentStoreTests\.'
	$(SWIFTPM) test --skip-build --skip 'DocumentStoreTests\.' --skip InitScaffoldBuildTests --skip HTTPSurfaceFuzzTests
	# The HTTP surface fuzzer alone: its 5-second hang detector measures the server, not the rest of the suite's load.
	SWITCHYARD_FUZZ_SECONDS=$(HTTP_FUZZ_SECONDS) $(SWIFTPM) test --skip-build --filter HTTPSurfaceFuzzTests
	Scripts/soak.py .build/debug/switchyard --clients 8 --seconds 5 --readers 2 --bound-mb $(SOAK_BOUND_MB)
	# Builds a scaffolded package against this checkout (both cores for minutes): alone, after the rest.
	$(SWIFTPM) test --skip-build --filter InitScaffoldBuildTests

# The libFuzzer targets, then the HTTP surfaces (no 5xx, no request unanswered for 5 s; SWITCHYARD_FUZZ_SEED=N
# replays the seed a run printed).
fuzz: deps
	Fuzz/run.sh ejson 600
	Fuzz/run.sh bson 600
	$(SWIFTPM) build --build-tests
	SWITCHYARD_WIRE_FUZZ_CASES=$(WIRE_FUZZ_LONG_CASES) $(SWIFTPM) test --skip-build --filter fuzzedMessagesNeverCrashTheDecoder
	SWITCHYARD_FUZZ_SECONDS=$(HTTP_FUZZ_LONG_SECONDS) $(SWIFTPM) test --skip-build --filter HTTPSurfaceFuzzTests

# Sustained load on the example app, then the catch-up, with the server's RSS beside its bound (see README).
soak: deps
	$(SWIFTPM) build -c release --product switchyard
	Scripts/soak.py .build/release/switchyard --clients $(SOAK_CLIENTS) --seconds $(SOAK_SECONDS) --bound-mb $(SOAK_BOUND_MB)
	$(SWIFTPM) build --build-tests
	SWITCHYARD_SOAK_ROUNDS=$(SOAK_FAILOVER_ROUNDS) $(SWIFTPM) test --skip-build --filter ServeTriggerFailoverTests

# The push benchmark's peer (firebase-admin) and the wire benchmark's clients (pymongo, psycopg) run in a venv made
# here once; without network what it lacks is left out.
bench: EXTRA_PACKAGES = $(TEST_PACKAGES) $(BENCH_PACKAGES)
bench: deps
	$(SWIFTPM) build -c release --product switchyard-bench
	$(SWIFTPM) build -c release --product switchyard
	PYMONGO_VERSION=$(PYMONGO_VERSION) Benchmarks/push/make-venv.sh .build/bench-venv
	SWITCHYARD_BENCH_PYTHON=$(CURDIR)/.build/bench-venv/bin/python .build/release/switchyard-bench

format:
	$(SWIFT) format --in-place --recursive Sources Tests Benchmarks functions Package.swift
