/// The version of flickd and flickctl. Both print it for `--version`, and `scripts/deb.sh` reads
/// it back from the built `flickd`, so the daemon, the client and the package never disagree.
public let flickVersion = "0.3.0"
