// swift-tools-version: 6.0
// flickd — iPhone-quality scrolling and zooming for Linux kiosk touch panels.
// Layout and layering: ../shared/DESIGN.md §1. Arrows point down only:
// flickd → FlickDaemon → {FlickInput, FlickDisplay, FlickControl} → FlickCore.
import PackageDescription

/// A C library reached through pkg-config, installed from Debian.
func systemLibrary(_ name: String, pkgConfig: String, apt: String) -> Target {
    .systemLibrary(name: name, path: "Sources/\(name)", pkgConfig: pkgConfig, providers: [.apt([apt])])
}

let package = Package(
    name: "flickd",
    products: [
        .library(name: "FlickCore", targets: ["FlickCore"]),
        .library(name: "FlickInput", targets: ["FlickInput"]),
        .library(name: "FlickDisplay", targets: ["FlickDisplay"]),
        .executable(name: "scroll-demo", targets: ["scroll-demo"]),
    ],
    dependencies: [
        // RealModule: exp/log/pow for the physics without importing Glibc into FlickCore.
        .package(url: "https://github.com/apple/swift-numerics", from: "1.1.1"),
    ],
    targets: [
        // C shims: one per library, imported only by the module that wraps it.
        systemLibrary("CEvdev", pkgConfig: "libevdev", apt: "libevdev-dev"),
        systemLibrary("CDRM", pkgConfig: "libdrm", apt: "libdrm-dev"),
        systemLibrary("CPixman", pkgConfig: "pixman-1", apt: "libpixman-1-dev"),
        systemLibrary("CSpng", pkgConfig: "spng", apt: "libspng-dev"),
        systemLibrary("CTurboJPEG", pkgConfig: "libturbojpeg", apt: "libturbojpeg0-dev"),

        // Pure Swift, no I/O, no clock: geometry, touch frames, gestures, scroll physics.
        .target(
            name: "FlickCore",
            dependencies: [.product(name: "RealModule", package: "swift-numerics")],
            linkerSettings: [.linkedLibrary("m")]
        ),
        // libevdev devices and evemu recordings → TouchFrame.
        .target(name: "FlickInput", dependencies: ["FlickCore", "CEvdev"]),
        // Output backends (DRM/KMS, fbdev, headless), pixman compositor, image content.
        .target(name: "FlickDisplay", dependencies: ["FlickCore", "CDRM", "CPixman", "CSpng", "CTurboJPEG"]),

        // Plays a scripted flick through the model and prints the delegate events.
        .executableTarget(name: "scroll-demo", dependencies: ["FlickCore"]),

        .testTarget(
            name: "FlickCoreTests",
            dependencies: ["FlickCore", .product(name: "RealModule", package: "swift-numerics")]
        ),
        .testTarget(name: "FlickInputTests", dependencies: ["FlickInput", "FlickCore"]),
        .testTarget(name: "FlickDisplayTests", dependencies: ["FlickDisplay", "FlickCore"]),
    ],
    swiftLanguageModes: [.v6]
)
