/// The version of flickd and flickctl. Both print it for `--version`, and `scripts/deb.sh` reads
/// it back from the built `flickd`, so the daemon, the client and the package never disagree.
public let flickVersion = "0.3.0"

/// The version of the control protocol (docs/protocol.md), which `status` reports as
/// `protocolVersion`. It grows by one whenever a field changes meaning or goes away, so a
/// client can refuse a daemon that speaks another language; new fields and events alone do
/// not bump it (clients ignore what they do not know). A daemon that reports none speaks 1.
///
/// 2: one meaning per field (`x`/`y` only content points; `targetOffset`, `translation`,
/// `distance`, `fromPage`, `fromScale`, `duration` for what `x`/`y` held before; a flick's
/// `vx`/`vy` an offset's velocity like `willEndDragging`'s), every event with the state when
/// it happened and the flags, `state` events, a clock that never goes back.
public let controlProtocolVersion = 2
