import FlickCore
import FlickSystem
import Glibc
import Testing
@testable import FlickDisplay

private func screenInfo(bpp: UInt32, yresVirtual: UInt32, ypanstep: UInt16 = 1, memory: UInt32? = nil)
    -> (FbVarScreenInfo, FbFixScreenInfo) {
    var v = FbVarScreenInfo()
    v.xres = 800; v.yres = 480; v.xresVirtual = 800; v.yresVirtual = yresVirtual; v.bitsPerPixel = bpp
    var f = FbFixScreenInfo()
    f.lineLength = 3328  // padded rows: draw with the line length, not width × 4
    f.ypanstep = ypanstep
    f.smemLength = memory ?? 3328 * yresVirtual
    return (v, f)
}

@Test func panningDoubleBuffersWhenTheVirtualAreaHoldsTwoScreens() throws {
    let (v, f) = screenInfo(bpp: 32, yresVirtual: 960)
    let layout = try FbdevLayout.plan(variable: v, fixed: f, device: "/dev/fb0")
    #expect(layout == FbdevLayout(size: PixelSize(width: 800, height: 480), stride: 3328, bufferCount: 2,
                                  mappedLength: 3328 * 960))
}

@Test func singleBufferOtherwise() throws {
    let (v, f) = screenInfo(bpp: 32, yresVirtual: 480)
    #expect(try FbdevLayout.plan(variable: v, fixed: f, device: "/dev/fb0").bufferCount == 1)
    let (v2, f2) = screenInfo(bpp: 32, yresVirtual: 960, ypanstep: 0)  // cannot pan
    #expect(try FbdevLayout.plan(variable: v2, fixed: f2, device: "/dev/fb0").bufferCount == 1)
}

@Test func only32BitsPerPixel() {
    let (v, f) = screenInfo(bpp: 16, yresVirtual: 480)
    #expect(throws: FbdevError.unsupportedDepth(device: "/dev/fb1", bitsPerPixel: 16)) {
        try FbdevLayout.plan(variable: v, fixed: f, device: "/dev/fb1")
    }
    let (v2, f2) = screenInfo(bpp: 32, yresVirtual: 480, memory: 1000)
    #expect(throws: FbdevError.badGeometry(device: "/dev/fb0")) { try FbdevLayout.plan(variable: v2, fixed: f2, device: "/dev/fb0") }
}

@Test func screenInfoFieldsSitAtTheKernelOffsets() {
    var v = FbVarScreenInfo()
    v.bitsPerPixel = 32
    v.pixclock = 7
    #expect(v.bytes.count == 160 && v.bytes[24] == 32 && v.bytes[100] == 7)
    var f = FbFixScreenInfo()
    f.lineLength = 0x0102
    f.ypanstep = 1
    #expect(f.bytes.count == (MemoryLayout<UInt>.size == 8 ? 80 : 68))
    if MemoryLayout<UInt>.size == 8 { #expect(f.bytes[48] == 2 && f.bytes[49] == 1 && f.bytes[42] == 1) }
}

@Test func missingFramebufferIsAClearError() {
    #expect(throws: FbdevError.open(device: "/nonexistent/fb0", cause: SystemError(call: "open", context: "/nonexistent/fb0", errno: ENOENT))) {
        try FbdevOutput(device: "/nonexistent/fb0")
    }
}

/// Issue 34: the driver's millimetres (`fb_var_screeninfo.height`, `width`: fields 22 and 23)
/// give the panel's size when both are set; 0 and −1 say the driver does not know.
@Test func theScreenInfosMillimetresAreThePanelsSizeWhenSet() {
    var v = FbVarScreenInfo()
    #expect(v.physicalSize == nil)
    v.widthMillimetres = 154
    v.heightMillimetres = 86
    #expect(v.bytes[92] == 154 && v.bytes[88] == 86)
    #expect(v.physicalSize == Size(width: 154, height: 86))
    v.heightMillimetres = .max
    #expect(v.physicalSize == nil)
}
