# flickd — the README's commands, plus install and the end-to-end test.
PREFIX ?= /usr/local
SYSCONFDIR ?= /etc
DESTDIR ?=
export PREFIX SYSCONFDIR DESTDIR

.PHONY: all run test install deb e2e bench bench-feel soak soak-month fuzz

# Release binaries carry the Swift runtime (--static-swift-stdlib): one file each to copy onto a
# board without Swift, and less resident memory (BENCHMARKS.md). Every release build here and in
# scripts/ uses the same flags, so the builds share one .build/release.
all:
	scripts/deps.sh
	swift build -c release --static-swift-stdlib --product flickd
	swift build -c release --static-swift-stdlib --product flickctl
	swift build -c release --static-swift-stdlib --product flickd-render
	swift build -c release --static-swift-stdlib --product generate-manual

run:
	scripts/run.sh

test:
	scripts/test.sh

# Builds in release mode, then installs the stripped binaries, unit, config, sysusers and
# tmpfiles entries, man pages (made by scripts/man.sh with generate-manual), completions and docs.
install: all
	scripts/install.sh .build/release

# The Debian package, out/flickd_VERSION_ARCH.deb: `dpkg -i` it, then `systemctl enable --now flickd`.
deb:
	scripts/deb.sh

# A real kernel in qemu: a uinput touchscreen in, vkms frames out (Tests/E2E).
e2e:
	scripts/e2e.sh

bench:
	swift build -c release --static-swift-stdlib --product flickd
	swift build -c release --static-swift-stdlib --product flickd-render
	swift build -c release --static-swift-stdlib --product flickd-bench
	.build/release/flickd-bench $(BENCH_ARGS)

# Section 6 alone (touch resampling and smoothing, virtual time): seconds, not minutes.
bench-feel:
	swift build -c release --static-swift-stdlib --product flickd-bench
	.build/release/flickd-bench --feel $(BENCH_ARGS)

# Not in CI: 10 minutes of the daemon under a 250 Hz stream (RELIABILITY.md).
soak:
	scripts/soak.sh

# A month of a kiosk's life on the virtual clock in minutes (RELIABILITY.md); CI runs 3 days.
# SOAK_ARGS: e.g. --days 3, --seed 7.
soak-month:
	swift build -c release --static-swift-stdlib --product flickd-soak-month
	.build/release/flickd-soak-month $(SOAK_ARGS)

# libFuzzer on the parsers and decoders, 60 s each (RELIABILITY.md).
fuzz:
	scripts/fuzz.sh 60
