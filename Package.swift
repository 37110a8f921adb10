// swift-tools-version: 6.0
// flickd — iPhone-quality scrolling and zooming for Linux kiosk touch panels.
// Layout and layering: docs/ARCHITECTURE.md. Arrows point down only:
// flickd → FlickDaemon → {FlickInput, FlickWayland → FlickDisplay, FlickControl} → FlickSystem → FlickCore.
import PackageDescription

/// A C library reached through pkg-config, installed from Debian.
func systemLibrary(_ name: String, pkgConfig: String, apt: String) -> Target {
    .systemLibrary(name: name, path: "Sources/\(name)", pkgConfig: pkgConfig, providers: [.apt([apt])])
}

let package = Package(
    name: "flickd",
    products: [
        .library(name: "FlickCore", targets: ["FlickCore"]),
        .library(name: "FlickSystem", targets: ["FlickSystem"]),
        .library(name: "FlickInput", targets: ["FlickInput"]),
        .library(name: "FlickDisplay", targets: ["FlickDisplay"]),
        .library(name: "FlickWayland", targets: ["FlickWayland"]),
        // Also for the fuzz package (Fuzz/), which reaches the config loader and the protocol.
        .library(name: "FlickControl", targets: ["FlickControl"]),
        .library(name: "FlickDaemon", targets: ["FlickDaemon"]),
        .executable(name: "flickd", targets: ["flickd"]),
        .executable(name: "flickctl", targets: ["flickctl"]),
        .executable(name: "scroll-demo", targets: ["scroll-demo"]),
        // The document helper's library and its sample documents, for the fuzz package (Fuzz/),
        // whose `document` target feeds the helper's input path and seeds from the samples.
        .library(name: "FlickDocument", targets: ["FlickDocument"]),
        .library(name: "FlickDocumentSamples", targets: ["FlickDocumentSamples"]),
        // The document helper flickd starts to parse and draw PDFs and SVGs (docs/documents.md).
        .executable(name: "flickd-render", targets: ["flickd-render"]),
    ],
    dependencies: [
        // RealModule: exp/log/pow for the physics without importing Glibc into FlickCore.
        .package(url: "https://github.com/apple/swift-numerics", from: "1.1.1"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
    ],
    targets: [
        // C shims: one per library, imported only by the module that wraps it.
        systemLibrary("CEvdev", pkgConfig: "libevdev", apt: "libevdev-dev"),
        systemLibrary("CDRM", pkgConfig: "libdrm", apt: "libdrm-dev"),
        systemLibrary("CPixman", pkgConfig: "pixman-1", apt: "libpixman-1-dev"),
        systemLibrary("CSpng", pkgConfig: "spng", apt: "libspng-dev"),
        systemLibrary("CTurboJPEG", pkgConfig: "libturbojpeg", apt: "libturbojpeg0-dev"),
        // WebP, the third image format: libwebp decodes (whole, or incrementally for a pyramid)
        // and libwebpdemux finds an animation's first frame.
        systemLibrary("CWebP", pkgConfig: "libwebpdemux", apt: "libwebp-dev"),
        // libjpeg's scanline API, for JPEGs too big to decode whole (the pyramid builder reads
        // them in row bands); CJPEGRows keeps libjpeg's longjmp error handling in C.
        systemLibrary("CJPEG", pkgConfig: "libjpeg", apt: "libjpeg62-turbo-dev"),
        .target(name: "CJPEGRows", dependencies: ["CJPEG"]),
        systemLibrary("CSystemd", pkgConfig: "libsystemd", apt: "libsystemd-dev"),
        // glibc's malloc.h (mallopt): part of libc, no package of its own.
        .systemLibrary(name: "CMalloc", path: "Sources/CMalloc"),
        // glibc's memfd_create and file sealing (content providers' pools): part of libc too.
        .systemLibrary(name: "CMemfd", path: "Sources/CMemfd"),
        systemLibrary("CExpat", pkgConfig: "expat", apt: "libexpat1-dev"),
        // toml++ (Debian's libtomlplusplus-dev, installed by scripts/deps.sh) behind a small C API
        // that owns what it returns. Header-only: compiled into this target, so the fuzz build
        // instruments the parser and flickd needs no toml++ library at run time.
        .target(name: "CTOMLParser"),
        // libwayland-client, and the extension protocols' glue that wayland-scanner generates from
        // Debian's wayland-protocols (scripts/wayland-protocols.sh; SwiftPM cannot run the scanner,
        // so the generated files are committed and scripts/test.sh checks they are current).
        systemLibrary("CWayland", pkgConfig: "wayland-client", apt: "libwayland-dev"),
        .target(name: "CWaylandProtocols", dependencies: ["CWayland"]),
        // The document helper's libraries (flickd-render only; flickd links none of them, and the
        // helper is under the GPL's terms because of poppler: README, "Licences").
        systemLibrary("CPoppler", pkgConfig: "poppler-glib", apt: "libpoppler-glib-dev"),
        systemLibrary("CRsvg", pkgConfig: "librsvg-2.0", apt: "librsvg2-dev"),
        systemLibrary("CCairo", pkgConfig: "cairo", apt: "libcairo2-dev"),
        systemLibrary("CFontconfig", pkgConfig: "fontconfig", apt: "libfontconfig-dev"),
        systemLibrary("CSeccomp", pkgConfig: "libseccomp", apt: "libseccomp-dev"),

        // Pure Swift, no I/O, no clock: geometry, touch frames, gestures, scroll physics.
        .target(
            name: "FlickCore",
            dependencies: [.product(name: "RealModule", package: "swift-numerics")],
            linkerSettings: [.linkedLibrary("m")]
        ),
        // The kernel's side, shared by the modules that make system calls: the one error type of a
        // failed call, an owning file descriptor, a whole-buffer write, the monotonic clock.
        .target(name: "FlickSystem", dependencies: ["FlickCore"]),
        // libevdev devices and evemu recordings → TouchFrame (sd-device only for udev properties).
        .target(name: "FlickInput", dependencies: ["FlickCore", "FlickSystem", "CEvdev", "CSystemd"]),
        // Output backends (DRM/KMS, fbdev, headless), pixman compositor, image content, tiles
        // (expat reads Deep Zoom descriptors; libjpeg's scanline API streams JPEGs into pyramids).
        .target(name: "FlickDisplay", dependencies: ["FlickCore", "FlickSystem", "CDRM", "CPixman", "CSpng", "CTurboJPEG", "CJPEGRows", "CExpat",
                                                     "CMemfd", "CWebP"]),
        // A Wayland client: the connection to a compositor, a toplevel window as an Output (and
        // the seat's input, docs/ARCHITECTURE.md), for running under a desktop or a kiosk compositor.
        .target(name: "FlickWayland", dependencies: ["FlickCore", "FlickSystem", "FlickDisplay", "CWayland", "CWaylandProtocols", "CMemfd"]),

        // The control protocol's messages, shared by the daemon and flickctl.
        .target(name: "FlickControl", dependencies: ["FlickCore", "FlickSystem"]),
        // sd-event loop, TOML config, journal logging, notify/watchdog, control socket, state.
        .target(
            name: "FlickDaemon",
            dependencies: [
                "FlickCore", "FlickSystem", "FlickInput", "FlickDisplay", "FlickWayland", "FlickControl", "CSystemd",
                "CTOMLParser", "CMalloc",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "flickd",
            dependencies: ["FlickDaemon", "FlickInput", "FlickDisplay", "FlickControl", "FlickCore",
                           "FlickSystem", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            // Release builds (linked with --static-swift-stdlib, see the Makefile) use lld and packed
            // relative relocations (DT_RELR, glibc ≥ 2.36): the position-independent daemon's ~1.8 MB
            // of relocation records shrink to ~15 KB, which start-up no longer reads (less resident
            // memory and a faster start, BENCHMARKS.md items 4 and 5). The toolchain ships lld.
            // -z now (BIND_NOW): with RELRO, the whole GOT is read-only (Debian's hardening).
            // --no-export-dynamic: the driver exports every Swift symbol of an executable (11 745
            // dynamic symbols); nothing looks them up, yet the loader searches the executable's
            // table first for each symbol of every library, faulting its pages in: 636 symbols
            // left, 1 MB less text, 0.7–1.2 MiB less resident (BENCHMARKS.md, "Memory back within
            // its targets").
            linkerSettings: [.unsafeFlags(["-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs",
                                           "-Xlinker", "-z", "-Xlinker", "now", "-Xlinker", "--no-export-dynamic"],
                                          .when(configuration: .release))]
        ),
        .executableTarget(
            name: "flickctl",
            dependencies: ["FlickControl", "FlickCore", "FlickSystem", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            linkerSettings: [.unsafeFlags(["-Xlinker", "-z", "-Xlinker", "now"], .when(configuration: .release))]
        ),

        // The document helper (docs/documents.md): everything it does but main, so the tests, the
        // fuzz target and the benchmark drive the same code. It parses untrusted files, so it links
        // only what drawing needs: no FlickDisplay (pixman's compositor, DRM), no daemon.
        // expat finds an SVG's <a> elements, which librsvg draws but does not tell about.
        .target(name: "FlickDocument", dependencies: ["FlickCore", "FlickSystem", "FlickControl", "CPoppler", "CRsvg", "CCairo",
                                                      "CFontconfig", "CSeccomp", "CMemfd", "CMalloc", "CExpat"]),
        // flickd-render: started by flickd with a socket and the documents' descriptors; sandboxed.
        .executableTarget(name: "flickd-render", dependencies: ["FlickDocument"],
                          linkerSettings: [.unsafeFlags(["-Xlinker", "-z", "-Xlinker", "now"], .when(configuration: .release))]),

        // Plays a scripted flick through the model and prints the delegate events.
        .executableTarget(name: "scroll-demo", dependencies: ["FlickCore"]),

        // Release-mode measurements: `swift run -c release flickd-bench` (BENCHMARKS.md). CPixman
        // deliberately: the compose benchmark's peer is pixman called directly, not through FlickDisplay.
        // CMemfd: section 11's content providers make and seal their pools. FlickDocument and its
        // samples: section 15 draws a generated menu in process and through flickd-render. CJPEG:
        // section 19 writes its big JPEG row by row.
        .executableTarget(name: "flickd-bench", dependencies: ["FlickCore", "FlickSystem", "FlickInput", "FlickDisplay", "FlickDaemon", "FlickControl", "CPixman", "FlickTestSupport",
                                                               "CMemfd", "FlickDocument", "FlickDocumentSamples", "CJPEG"],
                          path: "Benchmarks/flickd-bench"),

        // The end-to-end test on a real kernel (Tests/E2E): a uinput touchscreen playing gestures,
        // and a frame grabber reading back what flickd shows on the DRM card.
        .executableTarget(name: "flickd-e2e-touch", dependencies: ["FlickInput"], path: "Tests/E2E/Touchscreen"),
        .executableTarget(name: "flickd-e2e-grab", dependencies: ["FlickDisplay"], path: "Tests/E2E/Grab"),

        // The soak run (scripts/soak.sh, not in CI): the real daemon under a long 250 Hz stream.
        .executableTarget(name: "flickd-soak", dependencies: ["FlickInput", "FlickControl"], path: "Tests/Soak"),
        // A month of a kiosk's life on the virtual clock (`make soak-month`, 3 days in CI): the
        // pipeline, content host, power machine and a provider as the daemon assembles them.
        .executableTarget(name: "flickd-soak-month", dependencies: ["FlickDaemon", "FlickDisplay", "FlickControl", "FlickCore", "FlickSystem",
                                                                    "CMemfd", .product(name: "Logging", package: "swift-log")],
                          path: "Tests/SoakMonth"),

        // What the test targets share (not a product): the state tables of docs/ARCHITECTURE.md
        // read back, so tests hold each machine to its documented table; and waits on conditions
        // (a test never sleeps to let something happen).
        .target(name: "FlickTestSupport", dependencies: ["FlickCore"], path: "Tests/Support"),

        // Documents made on the spot with cairo (PDFs) or as text (SVGs, hand-built PDFs) for the
        // document helper's tests, fuzz seeds and benchmark.
        .target(name: "FlickDocumentSamples", dependencies: ["CCairo"], path: "Tests/DocumentSamples"),
        // Installs flickd-render's seccomp filter through the same function and then makes the
        // forbidden call named on its command line: the sandbox test expects it killed (SIGSYS).
        .executableTarget(name: "flickd-render-sandbox-check", dependencies: ["FlickDocument"], path: "Tests/SandboxCheck"),

        .testTarget(
            name: "FlickCoreTests",
            dependencies: ["FlickCore", "FlickTestSupport", .product(name: "RealModule", package: "swift-numerics")]
        ),
        .testTarget(name: "FlickInputTests", dependencies: ["FlickInput", "FlickCore", "FlickSystem", "FlickTestSupport"]),
        .testTarget(name: "FlickDisplayTests", dependencies: ["FlickDisplay", "FlickCore", "FlickSystem", "FlickTestSupport", "CMemfd", "CWebP",
                                                             "CTurboJPEG"]),
        .testTarget(name: "FlickWaylandTests", dependencies: ["FlickWayland", "FlickDisplay", "FlickCore", "FlickSystem", "FlickTestSupport"]),
        .testTarget(name: "FlickDaemonTests", dependencies: ["FlickDaemon", "FlickWayland", "FlickControl", "FlickCore", "FlickSystem", "FlickTestSupport", "CMemfd"]),
        // flickd-render's library and the built helper as a child process over a socket pair.
        .testTarget(name: "FlickDocumentTests", dependencies: ["FlickDocument", "FlickDocumentSamples", "FlickDisplay", "FlickControl", "FlickCore",
                                                              "FlickSystem", "FlickTestSupport", "CCairo", "CPoppler", "CRsvg"]),
        // The real flickd binary as a child process: headless, evemu input, its own config,
        // socket and state; also the systemd unit and the install script.
        // CPoppler and CCairo: a document's frame at zoom 4 is compared with its page drawn by
        // poppler at scale 4 (DocumentZoomDaemonTests); the daemon itself links neither.
        .testTarget(name: "flickdTests", dependencies: ["FlickControl", "FlickInput", "FlickDisplay", "FlickCore", "FlickTestSupport",
                                                  "CMemfd", "FlickDocumentSamples", "CPoppler", "CCairo"]),
    ],
    swiftLanguageModes: [.v6]
)
