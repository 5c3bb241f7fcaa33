# Two commands on a fresh Debian 12 machine:
#   make demo   install what is missing, build in Release, lint the bundled example site
#               (findings with simulated evidence: text, SARIF and the HTML policy-review page),
#               diff a proposed change against it (HTML) and simulate a week of its load
#   make test   the same set-up, then every test through ctest
# and to ship it:
#   make install [PREFIX=/usr/local] [DESTDIR=...]   binary, man pages, completions, docs
#   make package                                      the Debian 12 .deb, in $(BUILD)/package
BUILD ?= build
JOBS ?= $(shell nproc)
DEMO_SITE ?= corpora/tiered-university
PREFIX ?= /usr/local

.PHONY: all deps configure build demo test install package bench fuzz clean

all: build

deps:
	@scripts/install_deps.sh

configure: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release >/dev/null

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

demo: build
	@echo "== slurm-advisor lint $(DEMO_SITE) (its accounting files, the default load derived from the cluster)"
	@./$(BUILD)/cli/slurm-advisor lint $(DEMO_SITE)/slurm.conf --assoc $(DEMO_SITE)/sacctmgr_dump.cfg \
		--qos $(DEMO_SITE)/qos.psv --usage $(DEMO_SITE)/sshare_usage.psv; status=$$?; \
		if [ $$status -gt 1 ]; then exit $$status; fi
	@./$(BUILD)/cli/slurm-advisor lint $(DEMO_SITE)/slurm.conf --assoc $(DEMO_SITE)/sacctmgr_dump.cfg \
		--qos $(DEMO_SITE)/qos.psv --usage $(DEMO_SITE)/sshare_usage.psv --format sarif \
		--output $(BUILD)/demo-lint.sarif; status=$$?; if [ $$status -gt 1 ]; then exit $$status; fi
	@./$(BUILD)/cli/slurm-advisor lint $(DEMO_SITE)/slurm.conf --assoc $(DEMO_SITE)/sacctmgr_dump.cfg \
		--qos $(DEMO_SITE)/qos.psv --usage $(DEMO_SITE)/sshare_usage.psv --format html \
		--output $(BUILD)/demo-report.html; status=$$?; if [ $$status -gt 1 ]; then exit $$status; fi
	@echo "(SARIF for code scanning: $(BUILD)/demo-lint.sarif; the policy-review page: $(BUILD)/demo-report.html;"
	@echo " exit status 1 means findings at --fail-on)"
	@echo "== slurm-advisor diff: $(DEMO_SITE)/proposed/raise-bf-window.conf against the current slurm.conf"
	@./$(BUILD)/cli/slurm-advisor diff $(DEMO_SITE)/slurm.conf $(DEMO_SITE)/proposed/raise-bf-window.conf \
		--assoc $(DEMO_SITE)/sacctmgr_dump.cfg --qos $(DEMO_SITE)/qos.psv --usage $(DEMO_SITE)/sshare_usage.psv \
		--format html --output $(BUILD)/demo-diff.html; status=$$?; if [ $$status -gt 1 ]; then exit $$status; fi
	@echo "(what the change does to waits, shares and findings: $(BUILD)/demo-diff.html)"
	@echo "== slurm-advisor simulate $(DEMO_SITE) (a synthetic week, $(DEMO_SITE)/profile.txt)"
	@./$(BUILD)/cli/slurm-advisor simulate $(DEMO_SITE)/slurm.conf --assoc $(DEMO_SITE)/sacctmgr_dump.cfg \
		--qos $(DEMO_SITE)/qos.psv --usage $(DEMO_SITE)/sshare_usage.psv --synthetic $(DEMO_SITE)/profile.txt \
		--trace $(BUILD)/demo-trace.csv 2>/dev/null
	@echo "(per-job trace: $(BUILD)/demo-trace.csv)"

test: build
	@ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

install: build
	@DESTDIR="$(DESTDIR)" cmake --install $(BUILD) --prefix "$(PREFIX)"

package: build
	@cmake --build $(BUILD) --target package

bench: build
	@scripts/run_bench.sh $(BUILD)

fuzz:
	@SLURM_ADVISOR_EXTRAS=fuzz scripts/install_deps.sh
	@scripts/run_fuzz.sh

clean:
	@rm -rf $(BUILD)
