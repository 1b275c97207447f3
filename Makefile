# Thin wrapper over CMake so the README's commands are one word each.
BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=

.PHONY: all build demo test bench sanitize fuzz clean install

all: build

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS)

build: $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

demo: build
	./$(BUILD)/demo

test: build
	./$(BUILD)/cjax_tests

bench: build
	./$(BUILD)/bench_main
	./$(BUILD)/bench_ad

# The test suite again under AddressSanitizer + UndefinedBehaviorSanitizer.
sanitize:
	cmake -S . -B $(BUILD)-asan -DCMAKE_BUILD_TYPE=Debug -DCJAX_SANITIZE=ON -DCJAX_NATIVE=ON
	cmake --build $(BUILD)-asan -j $(JOBS) --target cjax_tests
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ./$(BUILD)-asan/cjax_tests

# The differential fuzzer for as long as asked: SEED=<n> COUNT=<programs>.
SEED ?= 1
COUNT ?= 1000000
fuzz: build
	CJAX_FUZZ_SEED=$(SEED) CJAX_FUZZ_COUNT=$(COUNT) ./$(BUILD)/cjax_tests fuzz_

install: build
	cmake --install $(BUILD)

clean:
	rm -rf $(BUILD) $(BUILD)-asan
