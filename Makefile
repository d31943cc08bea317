# The two promises of the README:
#   make demo   installs what is missing, builds, runs the main job
#   make check  installs what is missing, builds, runs every test (plain and
#               under AddressSanitizer + UndefinedBehaviorSanitizer)
BUILD      ?= build
ASAN_BUILD ?= build-asan
RELEASE_BUILD ?= build-release
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 30
PREFIX     ?= /usr/local
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)
# The plain tests mostly wait on servers (a full run used 27% of two cores
# at -j4), so twice as many at once; the timing suites still run alone
# (RUN_SERIAL), and the sanitised half, CPU-bound, runs JOBS at once.
TEST_JOBS  ?= $(shell echo $$(( $(JOBS) * 2 )))

.PHONY: all deps build demo check test asan release bench fuzz format install clean

all: build

deps:
	@scripts/deps.sh

build: deps
	cmake -S . -B $(BUILD) -DTC_WERROR=ON
	cmake --build $(BUILD) -j$(JOBS)

demo: build
	scripts/demo.sh $(BUILD)/truecost

# The store's tests run on SQLite and, through scripts/pg-test.sh (a
# throwaway PostgreSQL server; TC_TEST_PG_URL), on PostgreSQL too.
PG_TEST    ?= $(CURDIR)/scripts/pg-test.sh

# Each half ends with its ten slowest tests (scripts/slowest.sh), pass or fail.
test: build
	cd $(BUILD) && { TC_REQUIRE_PG=1 $(PG_TEST) ctest --output-on-failure -j$(TEST_JOBS); \
	  echo $$? > ctest.status; } 2>&1 | tee ctest.log; \
	  $(CURDIR)/scripts/slowest.sh ctest.log; exit $$(cat ctest.status)

asan: deps
	cmake -S . -B $(ASAN_BUILD) -DTC_WERROR=ON -DTC_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug
	cmake --build $(ASAN_BUILD) -j$(JOBS)
	cd $(ASAN_BUILD) && { ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 TC_REQUIRE_PG=1 $(PG_TEST) \
	  ctest --output-on-failure -j$(JOBS); echo $$? > ctest.status; } 2>&1 | tee ctest.log; \
	  $(CURDIR)/scripts/slowest.sh ctest.log; exit $$(cat ctest.status)

check: test asan

# The optimised build has warnings of its own (GCC's -Wdangling-pointer,
# -Wmaybe-uninitialized need the optimiser): CI builds it too.
release: deps
	cmake -S . -B $(RELEASE_BUILD) -DTC_WERROR=ON -DCMAKE_BUILD_TYPE=Release -DTC_TESTS=ON
	cmake --build $(RELEASE_BUILD) -j$(JOBS)

bench: build
	$(PG_TEST) cmake --build $(BUILD) --target bench

fuzz:
	@scripts/deps.sh --fuzz
	CC=clang cmake -S . -B $(FUZZ_BUILD) -DTC_FUZZ=ON -DTC_TESTS=OFF
	cmake --build $(FUZZ_BUILD) -j$(JOBS)
	scripts/fuzz.sh $(FUZZ_BUILD) $(FUZZ_SECONDS)

# The binary, the man page and the bash completion under $(DESTDIR)$(PREFIX):
#   make install PREFIX=/usr DESTDIR=/tmp/pkg
install: build
	DESTDIR="$(DESTDIR)" cmake --install $(BUILD) --prefix "$(PREFIX)"

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD) $(RELEASE_BUILD)
