// swift-tools-version: 6.0
// flickd's libFuzzer targets (RELIABILITY.md, "Fuzzing"). A package of its own, beside the main
// one rather than in it: the fuzz binary only links with `-sanitize=fuzzer` (libFuzzer supplies
// the driver), so keeping it out of the main package graph leaves the normal build, tests and
// warnings untouched. Build and run it with `scripts/fuzz.sh`, never with a bare `swift build`.
import Foundation
import PackageDescription

// A path dependency is known by its folder's name, and the checkout's folder name varies.
let flickd = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().lastPathComponent

let package = Package(
    name: "flickd-fuzz",
    dependencies: [.package(path: "..")],
    targets: [
        // The targets and their seed makers: plain Swift over flickd's public API.
        .target(
            name: "FuzzTargets",
            dependencies: [
                .product(name: "FlickCore", package: flickd),
                .product(name: "FlickInput", package: flickd),
                .product(name: "FlickControl", package: flickd),
                .product(name: "FlickDaemon", package: flickd),
                .product(name: "FlickDisplay", package: flickd),
                .product(name: "FlickDocument", package: flickd),
                .product(name: "FlickDocumentSamples", package: flickd),
                "CWebPEncode",
            ]
        ),
        // libwebp's encoder for the WebP tile seeds (flickd itself only decodes).
        .systemLibrary(name: "CWebPEncode", pkgConfig: "libwebp", providers: [.apt(["libwebp-dev"])]),
        // `flickd-fuzz TARGET [libFuzzer flags] [CORPUS…]` and `flickd-fuzz seeds DIR`; libFuzzer's
        // main drives it, so it links only with `-sanitize=fuzzer`.
        .executableTarget(name: "flickd-fuzz", dependencies: ["FuzzTargets"]),
    ],
    swiftLanguageModes: [.v6]
)
