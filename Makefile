# SPDX-License-Identifier: MIT
# roofbench: the only build entry.
#   make                      build build/$(ARCH)/roofbench
#   make bench ARCH=sm_90     build, run the full suite, compare with expectations, write results
#   make test                 unit tests + every pair compiled (+ GPU validation where a GPU is)
#   make diagnostics          build the diagnostics in scripts/ into build/$(ARCH)/
#   make docs                 regenerate the numbers in README.md, docs/ and the kernel headers
# ARCH defaults to the GPU's compute capability (nvidia-smi), else sm_90.
# Every target builds with as many jobs as the machine has cores; -jN (or MAKEFLAGS=-jN) or
# JOBS=N chooses another number, -j1 builds one file at a time.

# Parallel by default: a -j of the user's wins (GNU make 4.3 does not show a command line's -j in
# MAKEFLAGS while it reads this file, and lets the command line's win over this line; 4.4 shows
# it, and the filter leaves it alone). `make clean <target>` stays serial, so clean runs first.
JOBS ?= $(shell nproc 2>/dev/null || getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
ifeq ($(filter -j%,$(MAKEFLAGS))$(filter clean,$(MAKECMDGOALS)),)
MAKEFLAGS += -j$(JOBS)
endif

CUDA_HOME ?= /usr/local/cuda
NVCC := $(CUDA_HOME)/bin/nvcc
ifeq ($(origin CC),default)
CC := gcc
endif

SUPPORTED_ARCHS := sm_80 sm_86 sm_89 sm_90 sm_100 sm_120
ifeq ($(origin ARCH),undefined)
DETECTED_CC := $(shell nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | tr -d '. ')
ARCH := $(if $(DETECTED_CC),sm_$(DETECTED_CC),sm_90)
endif
# (one of them: a list, 'ARCH=sm_90 sm_80', would pass the filter and fail later)
ifneq ($(words $(ARCH)),1)
$(error ARCH=$(ARCH) is not one architecture; use one of: $(SUPPORTED_ARCHS))
endif
ifeq ($(filter $(ARCH),$(SUPPORTED_ARCHS)),)
$(error ARCH=$(ARCH) is not supported; use one of: $(SUPPORTED_ARCHS))
endif

# Hopper builds the arch-specific sm_90a target, so wgmma and setmaxnreg are available; its
# machine code runs on compute capability 9.0 exactly (H100, H200). Other targets also embed
# PTX, which later GPUs can compile at load time.
SM := $(patsubst sm_%,%,$(ARCH))
ifeq ($(ARCH),sm_90)
GENCODE := -gencode=arch=compute_90a,code=sm_90a
else
GENCODE := -gencode=arch=compute_$(SM),code=[sm_$(SM),compute_$(SM)]
endif

# NCCL, for the pairs that need it (NCCL_PAIRS): $(NCCL_HOME) when given, else the CUDA Toolkit,
# else pip's nvidia-nccl-cu13, else the system (/usr). A folder qualifies when it has
# include/nccl.h and libnccl.so, or only libnccl.so.2 (the pip package), in lib64/, lib/ or
# lib/<multiarch>/. Without NCCL those pairs are left out and `roofbench list` says why.
NCCL_PAIRS := nccl_allreduce
MULTIARCH := $(shell $(CC) -print-multiarch 2>/dev/null)
nccl_libdir = $(firstword $(foreach d,lib64 lib lib/$(MULTIARCH),$(if $(wildcard $(1)/$(d)/libnccl.so $(1)/$(d)/libnccl.so.2),$(1)/$(d))))
nccl_found = $(if $(wildcard $(1)/include/nccl.h),$(call nccl_libdir,$(1)))
ifeq ($(origin NCCL_HOME),undefined)
NCCL_HOME := $(if $(call nccl_found,$(CUDA_HOME)),$(CUDA_HOME))
ifeq ($(NCCL_HOME),)
NCCL_PIP := $(shell python3 -c 'import nvidia.nccl, os; print(os.path.dirname(nvidia.nccl.__file__))' 2>/dev/null)
NCCL_HOME := $(firstword $(foreach d,$(NCCL_PIP) /usr,$(if $(call nccl_found,$(d)),$(d))))
endif
endif
NCCL_LIBDIR := $(if $(NCCL_HOME),$(call nccl_found,$(NCCL_HOME)))
ifneq ($(NCCL_LIBDIR),)
# (the toolkit's folders are on the command lines anyway)
NCCL_CFLAGS := -DRB_HAVE_NCCL $(if $(filter-out $(CUDA_HOME),$(NCCL_HOME)),-I$(NCCL_HOME)/include)
comma := ,
NCCL_LDLIBS := $(if $(filter-out $(CUDA_HOME)/lib64,$(NCCL_LIBDIR)),-L$(NCCL_LIBDIR) -Wl$(comma)-rpath$(comma)$(NCCL_LIBDIR)) \
               $(if $(wildcard $(NCCL_LIBDIR)/libnccl.so),-lnccl,-l:libnccl.so.2)
else
NCCL_MISSING := NCCL not found (include/nccl.h and libnccl.so[.2] in $(if $(NCCL_HOME),NCCL_HOME=$(NCCL_HOME),$(CUDA_HOME), pip's nvidia-nccl-cu13 or /usr)): build with NCCL_HOME=<folder>
endif

B := build/$(ARCH)
# Include paths. harness/ has four folders: model/ (no CUDA headers, no presentation: stats,
# JSON, roofline, expectations, results, the verdicts of run, compare, history, node and fleet),
# report/ (what shows the model: tables, terminal text, Markdown, CSV, SVG, plots, HTML, docs
# rendering; it reads the model, the model never reads it), kit/ (the pair kit: the pair
# contract and the helpers a pair may use) and runner/ (the engine: main, jobs, child, measure,
# results, ceilings, env). Pairs (bench/, kernels/), the kit, the model and the report are
# compiled with the kit and the model on the include path only, so a pair that includes a
# runner header does not build, and neither does a model file that names a report header bare;
# the runner sees them all. -Iharness names the model's and the report's headers by their
# folder (#include "model/json.h", "report/plot.h"), -I. (the repository root) the pair seams:
# #include "kernels/<pair>.h". (tests/test_layout.c checks the direction and the circles.)
INC_KIT := -Iharness/kit -Iharness/model -Iharness -I.
INC_RUNNER := -Iharness/runner $(INC_KIT)
INC = $(INC_KIT)
WARN := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes
CFLAGS_ALL := -std=c11 -D_POSIX_C_SOURCE=200809L -O2 -g $(WARN) $(if $(WERROR),-Werror) \
              -I$(CUDA_HOME)/include $(NCCL_CFLAGS) $(CFLAGS)
NVCCFLAGS_ALL := -std=c++17 -O3 -lineinfo $(GENCODE) -Xcompiler -Wall,-Wextra \
                 $(if $(WERROR),-Werror all-warnings) $(NVCCFLAGS)
LDLIBS_ALL := -L$(CUDA_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64 -lcublasLt -lcublas -lcudart \
              $(NCCL_LDLIBS) -lstdc++ -ldl -lm \
              -lpthread $(LDLIBS)

# make SANITIZE=1 [test]: the same build with gcc's AddressSanitizer and UBSan, in its own folder
# (build/$(ARCH)-san) so sanitized and plain objects never mix. Host code only: nvcc passes the
# flags to its host compiler, device code is not instrumented (compute-sanitizer checks it:
# make sanitize). Any UBSan report is fatal (-fno-sanitize-recover), like an ASan one.
ifeq ($(SANITIZE),1)
B := build/$(ARCH)-san
# (gcc's -fsanitize=undefined leaves out float-cast-overflow, a double converted to an integer
# type that cannot hold it: named here.)
SAN_FLAGS := -fsanitize=address -fsanitize=undefined -fsanitize=float-cast-overflow \
             -fno-sanitize-recover=all -fno-omit-frame-pointer
CFLAGS_ALL += $(SAN_FLAGS)
NVCCFLAGS_ALL += $(foreach f,$(SAN_FLAGS),-Xcompiler $(f))
LDLIBS_ALL += $(SAN_FLAGS)
# For every program the recipes run (rbtest, and roofbench under it): the CUDA driver reserves
# fixed host addresses inside ASan's shadow gap (0x200000000 on), which ASan write-protects by
# default, so cuInit / cudaMalloc fail with out of memory on a GPU machine; protect_shadow_gap=0
# leaves that range to the driver (https://github.com/google/sanitizers/issues/629). The CUDA
# libraries' allocations that live until exit are not ours: tests/lsan.supp. A sanitizer report exits 99, which no roofbench
# exit code means, so a test that expects an exit code fails on it. ASAN_OPTIONS and friends
# given by the user come last and win.
export ASAN_OPTIONS := protect_shadow_gap=0:detect_leaks=1:exitcode=99$(if $(ASAN_OPTIONS),:$(ASAN_OPTIONS))
export UBSAN_OPTIONS := print_stacktrace=1:halt_on_error=1:exitcode=99$(if $(UBSAN_OPTIONS),:$(UBSAN_OPTIONS))
export LSAN_OPTIONS := suppressions=$(CURDIR)/tests/lsan.supp:exitcode=99$(if $(LSAN_OPTIONS),:$(LSAN_OPTIONS))
endif

# The revision the results record. GIT_REV=<rev> overrides it: a copy of the tree whose .git is
# not the one the tree was committed in (a GPU machine's) would otherwise name the wrong commit.
ifeq ($(origin GIT_REV),undefined)
GIT_REV := $(shell git describe --always --dirty --abbrev=7 2>/dev/null || cat .rb-git 2>/dev/null || echo unknown)
endif
PAIRS := $(filter-out $(if $(NCCL_MISSING),$(NCCL_PAIRS)),$(sort $(basename $(notdir $(wildcard bench/*.c)))))

MODEL_SRC := $(wildcard harness/model/*.c)
REPORT_SRC := $(wildcard harness/report/*.c)
CORE_SRC := $(MODEL_SRC) $(REPORT_SRC)
HARNESS_SRC := $(filter-out harness/runner/main.c harness/runner/mpi_main.c,\
                              $(wildcard harness/kit/*.c harness/runner/*.c))
HARNESS_CU := $(wildcard harness/kit/*.cu harness/runner/*.cu)
# Planted defects that need a kernel of their own (bench/<pair>_defects.cu; the lessons in
# kernels/ hold none): built with the pairs, run only by the GPU tests.
DEFECTS_CU := $(filter $(PAIRS:%=bench/%_defects.cu),$(wildcard bench/*_defects.cu))
OBJ_CORE := $(CORE_SRC:%.c=$(B)/%.o)
OBJ_LIB := $(OBJ_CORE) $(HARNESS_SRC:%.c=$(B)/%.o) $(HARNESS_CU:%.cu=$(B)/%.o) \
           $(PAIRS:%=$(B)/bench/%.o) $(PAIRS:%=$(B)/kernels/%.o) $(DEFECTS_CU:%.cu=$(B)/%.o) \
           $(B)/registry.o $(B)/version.o \
           $(B)/fingerprints.o
OBJ_TEST := $(patsubst %.c,$(B)/%.o,$(wildcard tests/*.c))

.PHONY: all bench test diagnostics docs clean FORCE
# The last line a person sees after `make` says when the build has no codegen fingerprints (no
# cuobjdump): its results cannot attribute a change to the code (each says so in its
# environment, codegen_fingerprints: false).
all: $(B)/roofbench
	@$(if $(CUOBJDUMP),:,echo "note: this build has no codegen fingerprints: cuobjdump was not found (RB_CUOBJDUMP, $(CUDA_HOME)/bin or PATH; CUOBJDUMP=<path> sets it); its results cannot tell a code change from a platform change")

$(B)/roofbench: $(B)/harness/runner/main.o $(OBJ_LIB) $(B)/ldflags.stamp
	$(CC) -o $@ $(filter %.o,$^) $(LDLIBS_ALL)

$(B)/rbtest: $(OBJ_TEST) $(OBJ_LIB) $(B)/ldflags.stamp
	$(CC) -o $@ $(filter %.o,$^) $(LDLIBS_ALL)

# make MPI=1 also builds $(B)/roofbench_mpi: a fleet, one process per GPU on one node or many,
# bootstrapped through MPI (harness/runner/mpi_main.c, docs/fleet.md), compiled and linked by
# MPICC.
ifeq ($(MPI),1)
ifneq ($(NCCL_MISSING),)
$(error make MPI=1 needs NCCL: $(NCCL_MISSING))
endif
MPICC ?= mpicc
all: $(B)/roofbench_mpi

$(B)/roofbench_mpi: $(B)/harness/runner/mpi_main.o $(OBJ_LIB) $(B)/ldflags.stamp
	$(MPICC) -o $@ $(filter %.o,$^) $(LDLIBS_ALL)

$(B)/harness/runner/mpi_main.o: harness/runner/mpi_main.c $(B)/cflags.stamp
	@mkdir -p $(@D)
	$(MPICC) $(CFLAGS_ALL) $(INC_RUNNER) -MMD -MP -c $< -o $@
endif

# Diagnostics behind pairs' headers and rows, not part of the suite (scripts/gpu_run.sh runs them on
# a GPU machine), built with the suite's flags: cuda_graphs_chain.cu includes
# kernels/cuda_graphs.cu; gemm_bf16_sustained.c and gemm_awkward_lt.c are plain C on cuBLASLt.
diagnostics: $(B)/cuda_graphs_chain $(B)/gemm_bf16_sustained $(B)/gemm_awkward_lt

$(B)/cuda_graphs_chain: scripts/probes/cuda_graphs_chain.cu $(B)/nvccflags.stamp
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS_ALL) $(INC) -MMD -MP -MF $@.d -o $@ $<

$(B)/gemm_bf16_sustained: scripts/probes/gemm_bf16_sustained.c $(B)/cflags.stamp $(B)/ldflags.stamp
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) $(INC) -MMD -MP -MF $@.d -o $@ $< $(LDLIBS_ALL)

$(B)/gemm_awkward_lt: scripts/probes/gemm_awkward_lt.c $(B)/cflags.stamp $(B)/ldflags.stamp
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) $(INC) -MMD -MP -MF $@.d -o $@ $< $(LDLIBS_ALL)

bench: $(B)/roofbench
	$(B)/roofbench run $(BENCH_ARGS)

test: $(B)/roofbench $(B)/rbtest
	$(B)/rbtest $(B)/roofbench $(if $(filter 1,$(SANITIZE)),$(SAN_LEAVE_OUT))

# make test SANITIZE=1 is there for the harness's C code (its unit tests and roofbench's no-GPU
# paths) under ASan and UBSan. It leaves out (rbtest's -SUITE and -SUITE/TEST) the tests that
# only re-check files the build or the repository holds: ASan makes none of them stricter, and the
# plain make test, which runs every test, checks them. SAN_LEAVE_OUT= on the command line runs all.
# codegen's checks of the kernel objects (cuobjdump over every pair, an nvcc rebuild); the SASS
# and fingerprint parsers' own tests stay, and the sanitized fingerprint tool reads every object.
SAN_LEAVE_OUT += -codegen/every_pair_has_its_instructions -codegen/optimized_kernels_do_not_spill \
                 -codegen/codegen_rules_fit_sass_counts -codegen/hgemm_kernels_do_not_spill \
                 -codegen/real_object_missing_instruction_fails \
                 -codegen/fingerprint_table_complete -codegen/fingerprint_table_matches_objects \
                 -codegen/fingerprint_rebuild_and_plant
# docs: the committed text's rules (citations, kernel header template, no tracker references).
SAN_LEAVE_OUT += -docs
# layout: include lines and the runner's call graph, read from the source tree.
SAN_LEAVE_OUT += -layout

# The numbers in README.md, docs/ and the kernel headers' Measured lines, regenerated from each
# GPU's committed reference run (results/<hardware-key>/reference.json; harness/report/docs.h),
# and beside that run its Markdown twin, its charts and its HTML report. make test fails while a
# generated block or a twin differs.
docs: $(B)/roofbench
	$(B)/roofbench docs
	@for f in results/*/reference.json; do $(B)/roofbench plot $$f --html || exit 1; done
	@if command -v chromium-headless-shell > /dev/null || command -v chromium > /dev/null; then \
	    tests/browser_test.sh $(B)/roofbench --shots docs/img || exit 1; \
	else \
	    echo "docs/img not remade: no headless Chromium (apt-get install chromium-headless-shell)"; \
	fi

clean:
	rm -rf build

# A flag change rebuilds exactly what depends on those flags: one stamp per compiler and one
# for the link, each rewritten only when its flags differ from the last build's.
define stamp
	@mkdir -p $(@D)
	@echo '$(1)' | cmp -s - $@ || echo '$(1)' > $@
endef
$(B)/cflags.stamp: FORCE
	$(call stamp,$(CC) $(CFLAGS_ALL))
$(B)/nvccflags.stamp: FORCE
	$(call stamp,$(NVCC) $(NVCCFLAGS_ALL))
$(B)/ldflags.stamp: FORCE
	$(call stamp,$(CC) $(LDLIBS_ALL))

# Generated files are rewritten only when their text changes.
$(B)/registry.c: FORCE
	@mkdir -p $(@D)
	@{ echo '/* generated by the Makefile from the files in bench/ */'; echo '#include "pair.h"'; \
	   for p in $(PAIRS); do echo "extern const rb_pair rb_pair_$$p;"; done; \
	   echo 'const rb_pair *const rb_registry[] = {'; \
	   for p in $(PAIRS); do echo "    &rb_pair_$$p,"; done; \
	   echo '    NULL};'; \
	   echo '/* pairs this build left out, as "<pair>: <why>" (roofbench list prints them) */'; \
	   echo 'extern const char *const rb_registry_missing[];'; \
	   echo 'const char *const rb_registry_missing[] = {'; \
	   for p in $(if $(NCCL_MISSING),$(NCCL_PAIRS)); do echo "    \"$$p: $(NCCL_MISSING)\","; done; \
	   echo '    NULL};'; } > $@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@

# The codegen fingerprints (harness/model/fingerprint.h): build/<arch>/fingerprint reads each
# kernel object with `cuobjdump -sass` and writes a table of per-kernel hashes and opcode counts
# that the child reports beside each kernel's registers. cuobjdump: $(RB_CUOBJDUMP), else the
# toolkit's, else PATH's (CUOBJDUMP=<path> overrides); none: an empty table, said once here, and
# the results carry no sass_hash (not an error).
ifeq ($(origin CUOBJDUMP),undefined)
CUOBJDUMP := $(firstword $(wildcard $(RB_CUOBJDUMP) $(CUDA_HOME)/bin/cuobjdump) \
                         $(shell command -v cuobjdump 2>/dev/null))
endif
FINGERPRINT_OBJ := $(B)/harness/tools/fingerprint.o $(B)/harness/model/fingerprint.o \
                   $(B)/harness/model/codegen.o $(B)/harness/model/util.o
$(B)/fingerprint: $(FINGERPRINT_OBJ) $(B)/ldflags.stamp
	$(CC) -o $@ $(FINGERPRINT_OBJ) $(if $(filter 1,$(SANITIZE)),$(SAN_FLAGS)) -lm

$(B)/cuobjdump.stamp: FORCE
	$(call stamp,$(CUOBJDUMP))

$(B)/fingerprints.c: $(PAIRS:%=$(B)/kernels/%.o) $(B)/fingerprint $(B)/cuobjdump.stamp
	@$(if $(CUOBJDUMP),,echo "codegen fingerprints: cuobjdump not found (RB_CUOBJDUMP, $(CUDA_HOME)/bin or PATH): the results will carry no sass_hash")
	@$(B)/fingerprint $@.tmp '$(CUOBJDUMP)' $(PAIRS:%=$(B)/kernels/%.o)
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@

# The nvcc release ("13.0") goes into version.c beside the revision and the architecture: an
# expectation row records them, and only rows of this release and architecture are checked
# against this build's fingerprints (harness/model/expect_check.h).
NVCC_RELEASE := $(shell $(NVCC) --version 2>/dev/null | sed -n 's/.*release \([0-9][0-9.]*\),.*/\1/p' | head -n 1)
# A text inside a C string literal, inside a shell's single quotes: \ and " escaped for C, ' for
# the shell (a checkout path may hold any of them).
c_text = $(subst ','\'',$(subst ",\",$(subst \,\\,$(1))))
$(B)/version.c: FORCE
	@mkdir -p $(@D)
	@printf '/* generated by the Makefile */\n#include "env.h"\nconst char rb_git_rev[] = "%s";\nconst char rb_build_arch[] = "%s";\n' \
	   '$(call c_text,$(GIT_REV))' '$(ARCH)' > $@.tmp
	@printf 'const char rb_build_nvcc[] = "%s";\n' '$(NVCC_RELEASE)' >> $@.tmp
	@printf 'const char rb_source_root[] = "%s";\n' '$(call c_text,$(CURDIR))' >> $@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@

# The runner, and the generated version.c (it includes the runner's env.h), see the runner's
# headers; everything else the kit's and the model's only (INC above).
$(B)/harness/runner/%.o $(B)/version.o: INC = $(INC_RUNNER)

$(B)/%.o: $(B)/%.c $(B)/cflags.stamp
	$(CC) $(CFLAGS_ALL) $(INC) -MMD -MP -c $< -o $@

$(B)/%.o: %.c $(B)/cflags.stamp
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) $(INC) -MMD -MP -c $< -o $@

$(B)/%.o: %.cu $(B)/nvccflags.stamp
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS_ALL) $(INC) -MMD -MP -MF $(@:.o=.d) -c $< -o $@

FORCE:

-include $(shell find $(B) -name '*.d' 2>/dev/null)

# ---- fuzzing and sanitizers (tests/fuzz/, scripts/sanitize.sh) ----
# make fuzz: libFuzzer targets for the JSON reader, the expectation loader, compare, plot and
# history, built by clang with ASan and UBSan from harness/model and harness/report alone (no CUDA) into build/fuzz/.
# make fuzz-run runs each for FUZZ_SECONDS from a seed corpus of the repository's own JSON files
# (tests/fuzz/run.sh).
# make sanitize: compute-sanitizer's four tools over every pair, on a GPU machine
# (scripts/sanitize.sh; logs in build/sanitize/).
FUZZ_CC ?= clang
FUZZ_B := build/fuzz
FUZZ_TARGETS := json expect compare plot history
FUZZ_SECONDS ?= 90
FUZZ_CFLAGS := -std=c11 -D_POSIX_C_SOURCE=200809L -O1 -g $(WARN) $(if $(WERROR),-Werror) \
               -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
               -fno-omit-frame-pointer -Iharness/model -Iharness/report -Iharness -Itests/fuzz -Itests
FUZZ_OBJ := $(patsubst %.c,$(FUZZ_B)/%.o,$(notdir $(CORE_SRC))) $(FUZZ_B)/fuzz_common.o \
            $(FUZZ_B)/xml_check.o

.PHONY: fuzz fuzz-run sanitize
.SECONDARY: $(FUZZ_OBJ) $(FUZZ_TARGETS:%=$(FUZZ_B)/fuzz_%.o)
fuzz: $(FUZZ_TARGETS:%=$(FUZZ_B)/fuzz_%)

$(FUZZ_B)/fuzz_%: $(FUZZ_B)/fuzz_%.o $(FUZZ_OBJ)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $^ -lm

$(FUZZ_B)/%.o: harness/model/%.c $(FUZZ_B)/flags.stamp
	$(FUZZ_CC) $(FUZZ_CFLAGS) -MMD -MP -c $< -o $@

$(FUZZ_B)/%.o: harness/report/%.c $(FUZZ_B)/flags.stamp
	$(FUZZ_CC) $(FUZZ_CFLAGS) -MMD -MP -c $< -o $@

$(FUZZ_B)/%.o: tests/fuzz/%.c $(FUZZ_B)/flags.stamp
	$(FUZZ_CC) $(FUZZ_CFLAGS) -MMD -MP -c $< -o $@

$(FUZZ_B)/%.o: tests/%.c $(FUZZ_B)/flags.stamp
	$(FUZZ_CC) $(FUZZ_CFLAGS) -MMD -MP -c $< -o $@

$(FUZZ_B)/flags.stamp: FORCE
	$(call stamp,$(FUZZ_CC) $(FUZZ_CFLAGS))

fuzz-run: fuzz
	FUZZ_SECONDS=$(FUZZ_SECONDS) tests/fuzz/run.sh $(FUZZ_TARGETS)

# compute-sanitizer and ASan do not mix: make sanitize wants the plain build. The preflight
# refuses a machine without a GPU before anything is built.
sanitize:
	@if [ "$(SANITIZE)" = 1 ]; then echo "make sanitize: build without SANITIZE=1 (compute-sanitizer and ASan do not mix)" >&2; exit 2; fi
	@scripts/sanitize.sh --preflight
	$(MAKE) --no-print-directory $(B)/roofbench
	scripts/sanitize.sh $(B)/roofbench

-include $(wildcard $(FUZZ_B)/*.d)
