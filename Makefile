# rdx: two commands for a newcomer — `make demo` and `make test`.
GO       ?= go
FUZZTIME ?= 3s
BIN      := bin/rdx
# rdx-full: plot, report and export, which the lean bin/rdx runs (lean.go)
FULL      = $(dir $(BIN))rdx-full
# staticcheck, pinned, run through `go run pkg@version`: it stays out of
# go.mod, so its dependencies (x/tools, x/mod, ...) never enter rdx's build
# list, and the module proxy's checksum database still checks the download.
STATICCHECK ?= $(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2

.PHONY: all build install demo test test-duckdb vet fuzz fuzz-long bench golden clean interop-rx

all: build

# Pure Go, linked statically: rdx needs no C library, and without the
# dynamic loader and libc start-up every run costs ~2 ms less CPU and ~60
# fewer page faults (measured on a 20-frame capture, 20 alternated runs).
# bin/rdx is the lean build (-tags lean): it leaves out plot, report and
# export, whose packages' init (gonum/plot's fonts, parquet-go's protobuf)
# took 12 of the 42 ms of every run over a small capture, and runs
# bin/rdx-full, built beside it, for them.
build:
	CGO_ENABLED=0 $(GO) build -tags lean -o $(BIN) ./cmd/rdx
	CGO_ENABLED=0 $(GO) build -o $(FULL) ./cmd/rdx

# Install for a package or a machine: the lean rdx with rdx-full beside it
# (the lean build looks there first, then in PATH), and shell completions.
# PREFIX=/usr DESTDIR=$$pkgdir for packagers; `go install ./cmd/rdx`
# instead gives one full rdx.
PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
SHAREDIR ?= $(PREFIX)/share
install: build
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(SHAREDIR)/bash-completion/completions \
		$(DESTDIR)$(SHAREDIR)/zsh/site-functions $(DESTDIR)$(SHAREDIR)/fish/vendor_completions.d
	install -m 0755 $(BIN) $(DESTDIR)$(BINDIR)/rdx
	install -m 0755 $(FULL) $(DESTDIR)$(BINDIR)/rdx-full
	$(abspath $(BIN)) completion bash > $(DESTDIR)$(SHAREDIR)/bash-completion/completions/rdx
	$(abspath $(BIN)) completion zsh > $(DESTDIR)$(SHAREDIR)/zsh/site-functions/_rdx
	$(abspath $(BIN)) completion fish > $(DESTDIR)$(SHAREDIR)/fish/vendor_completions.d/rdx.fish

# Decode a bundled real capture: OpenAFS vos dump with jumbograms.
demo: build
	./$(BIN) read pcaps/rx/vos-dump-bulk.pcap -c 40
	./$(BIN) read -V -c 2 pcaps/rx/pts-ops.pcap

vet:
	@test -z "$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))" || { echo "gofmt needed:"; gofmt -l .; exit 1; }
	$(GO) vet ./...
	$(GO) vet -tags lean ./cmd/rdx
	$(STATICCHECK) ./...
	$(STATICCHECK) -tags lean ./cmd/rdx
	@# go.mod/go.sum as `go mod tidy` leaves them (this also catches a direct
	@# dependency marked // indirect); -diff changes nothing, exits 1 on a diff.
	$(GO) mod tidy -diff

test: vet
	./scripts/test.sh

# rdx export's Parquet queried by DuckDB (a separate module: DuckDB needs
# cgo, rdx does not; the first build links DuckDB's static library).
test-duckdb:
	cd export/duckdbtest && CGO_ENABLED=1 $(GO) test -count=1 ./...

# rdx's Rx stack against a real OpenAFS cell (root; scripts/rxlab.sh brings
# the cell up in a namespace, RXLAB_INSTALL=1 installs the packages). About
# a minute; `make test` runs it too when root and the packages are there.
interop-rx:
	$(GO) test -count=1 -v -run 'TestRxInteropOpenAFS' ./cmd/rdx/

# Every fuzz target, briefly (CI runs this too).
fuzz:
	FUZZTIME=$(FUZZTIME) ./scripts/fuzz.sh

# Every fuzz target for 10 minutes each (hours in all): run before resolving
# an issue that touches a decoder. Strict, like `make fuzz`. FUZZMATCH=REGEXP
# (on "PACKAGE TARGET") runs a part, e.g. FUZZMATCH='dissect/(rx|afs) '.
fuzz-long:
	FUZZTIME=10m ./scripts/fuzz.sh

# Throughput of rdx (and tshark/tcpdump when installed) on generated captures.
bench: build
	./scripts/bench.sh
	./scripts/bench-rds.sh
	./scripts/bench-roce.sh
	./scripts/bench-export.sh
	./scripts/bench-live.sh

# Regenerate golden outputs after an intended change; review the diff.
golden:
	$(GO) test ./cmd/rdx/ -run Golden -update

clean:
	rm -rf bin

# Interop with the Linux kernel's own stacks in two qemu guests (minutes
# under TCG; not part of `make test` or CI): builds the guest (kernel .deb,
# debootstrap, initramfs with a static rdx), runs interop/scenarios/*.sh (or
# SCENARIOS=a,b) and fails if any scenario fails. See interop/README.md.
.PHONY: interop
interop:
	bash interop/build-guest.sh
	bash interop/run.sh $(SCENARIOS)
