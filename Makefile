# Two commands on a fresh Debian 12 machine:
#   make demo   install what is missing, build in Release, check the bundled example site
#               and simulate a week of its synthetic load
#   make test   the same set-up, then every test through ctest
BUILD ?= build
JOBS ?= $(shell nproc)
DEMO_SITE ?= corpora/tiered-university

.PHONY: all deps configure build demo test bench fuzz clean

all: build

deps:
	@scripts/install_deps.sh

configure: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release >/dev/null

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

demo: build
	@echo "== slurm-advisor check $(DEMO_SITE)/slurm.conf"
	@./$(BUILD)/cli/slurm-advisor check $(DEMO_SITE)/slurm.conf
	@echo "== slurm-advisor simulate $(DEMO_SITE) (a synthetic week, $(DEMO_SITE)/profile.txt)"
	@./$(BUILD)/cli/slurm-advisor simulate $(DEMO_SITE)/slurm.conf --assoc $(DEMO_SITE)/sacctmgr_dump.cfg \
		--qos $(DEMO_SITE)/qos.psv --usage $(DEMO_SITE)/sshare_usage.psv --synthetic $(DEMO_SITE)/profile.txt \
		--trace $(BUILD)/demo-trace.csv 2>/dev/null
	@echo "(per-job trace: $(BUILD)/demo-trace.csv)"

test: build
	@ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

bench: build
	@scripts/run_bench.sh $(BUILD)

fuzz:
	@SLURM_ADVISOR_EXTRAS=fuzz scripts/install_deps.sh
	@scripts/run_fuzz.sh

clean:
	@rm -rf $(BUILD)
