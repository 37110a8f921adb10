# flickd — the README's commands, plus install and the end-to-end test.
PREFIX ?= /usr/local
SYSCONFDIR ?= /etc
DESTDIR ?=
export PREFIX SYSCONFDIR DESTDIR

.PHONY: all run test install e2e bench soak fuzz

all:
	scripts/deps.sh
	swift build -c release --product flickd
	swift build -c release --product flickctl

run:
	scripts/run.sh

test:
	scripts/test.sh

# Builds in release mode, then installs binaries, unit, config, sysusers entry and docs.
install: all
	scripts/install.sh .build/release

# A real kernel in qemu: a uinput touchscreen in, vkms frames out (Tests/E2E).
e2e:
	scripts/e2e.sh

bench:
	swift build -c release --product flickd
	swift run -c release flickd-bench

# Not in CI: 10 minutes of the daemon under a 250 Hz stream (RELIABILITY.md).
soak:
	scripts/soak.sh

# libFuzzer on the parsers and decoders, 60 s each (RELIABILITY.md).
fuzz:
	scripts/fuzz.sh 60
