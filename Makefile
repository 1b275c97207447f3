# Thin wrapper over CMake so the README's commands are one word each.
BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=

# Where `make install` puts the library; given to cmake --install every
# time (the cache's CMAKE_INSTALL_PREFIX is not used). DESTDIR works too.
PREFIX ?= /usr/local

.PHONY: all build lib demo test bench sanitize fuzz clean install fuzz-inputs tsan

all: build

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS)

build: $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

# The library alone (static and shared): no tests, benchmarks or examples.
lib: $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS) --target cjax_static cjax_shared

demo: build
	./$(BUILD)/demo

# The layering check first (seconds; tools/check_layers.sh), its own test
# (that it fails on broken layer files), then the suite.
test: build
	sh tools/check_layers.sh $(BUILD)
	sh tools/test_check_layers.sh $(BUILD)
	sh tools/test_install.sh $(BUILD)
	sh tools/test_cpp.sh $(BUILD)
	./$(BUILD)/cjax_tests

# RUN=<name> names the JSON record (bench/results/<name>.json; default the date).
bench: build
	./$(BUILD)/bench_main $(if $(RUN),--name $(RUN))
	./$(BUILD)/bench_ad

# The test suite again under AddressSanitizer + UndefinedBehaviorSanitizer.
sanitize:
	cmake -S . -B $(BUILD)-asan -DCMAKE_BUILD_TYPE=Debug -DCJAX_SANITIZE=ON -DCJAX_NATIVE=ON
	cmake --build $(BUILD)-asan -j $(JOBS) --target cjax_tests
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ./$(BUILD)-asan/cjax_tests

# The differential fuzzer for as long as asked: SEED=<n> COUNT=<programs>,
# CC_EVERY=<k>: every k-th program also through generated C (default 100).
SEED ?= 1
COUNT ?= 1000000
CC_EVERY ?= 100
fuzz: build
	CJAX_FUZZ_SEED=$(SEED) CJAX_FUZZ_COUNT=$(COUNT) CJAX_FUZZ_CC_EVERY=$(CC_EVERY) ./$(BUILD)/cjax_tests fuzz_

# The input fuzzers (fuzz/) under libFuzzer, built with clang (+ ASan and
# UBSan) in $(BUILD)-libfuzzer: SECONDS=<n> per harness. They start from the
# committed seeds in fuzz/corpus/<harness>/ (read only); inputs that reach
# new code go to $(BUILD)-libfuzzer/corpus/<harness>/, and a crash to
# $(BUILD)-libfuzzer/crashes/ (add it to fuzz/corpus/<harness>/ as
# regression_<what>, so every `make test` replays it).
SECONDS ?= 60
FUZZ_HARNESSES = npy cache npz hlo
fuzz-inputs:
	cmake -S . -B $(BUILD)-libfuzzer -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DCJAX_LIBFUZZER=ON -DCJAX_BUILD_TESTS=OFF
	cmake --build $(BUILD)-libfuzzer -j $(JOBS) --target $(addprefix fuzz_,$(FUZZ_HARNESSES))
	mkdir -p $(BUILD)-libfuzzer/crashes
	set -e; for h in $(FUZZ_HARNESSES); do \
	  mkdir -p $(BUILD)-libfuzzer/corpus/$$h; \
	  ./$(BUILD)-libfuzzer/fuzz_$$h -max_total_time=$(SECONDS) -timeout=10 -print_final_stats=1 \
	    -artifact_prefix=$(BUILD)-libfuzzer/crashes/$$h- $(BUILD)-libfuzzer/corpus/$$h fuzz/corpus/$$h; \
	done

# ThreadSanitizer (Debug) over the thread-safety suite and fast suites that
# use the worker pool, the C backend's builds and the process-wide state.
# clang's runtime: gcc 12's libtsan reports a race inside glibc's own
# dlopen/dlclose when two threads load one object (no cjax code involved).
# Not the two-thread tests of one context (core_context_*_two_threads_*):
# they make the race the one-thread check refuses, and the refused thread's
# reads and its error record race with the owner by design.
TSAN_CC ?= clang
TSAN_TESTS ?= thread_ gather_take_large_threaded cc_build native gemm fuzz_inputs
tsan:
	cmake -S . -B $(BUILD)-tsan -DCMAKE_C_COMPILER=$(TSAN_CC) -DCMAKE_BUILD_TYPE=Debug -DCJAX_TSAN=ON
	cmake --build $(BUILD)-tsan -j $(JOBS) --target cjax_tests
	TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" ./$(BUILD)-tsan/cjax_tests $(TSAN_TESTS)

install: lib
	cmake --install $(BUILD) --prefix "$(PREFIX)"

clean:
	rm -rf $(BUILD) $(BUILD)-asan $(BUILD)-tsan $(BUILD)-libfuzzer $(BUILD)-valgrind $(BUILD)-lib
