import FlickCore
import FlickSystem
import Glibc
import Testing
@testable import FlickDisplay

// vkms lists its modes largest first, with the preferred 1024x768 further down.
private let vkmsLike = [
    DisplayMode(width: 8192, height: 8192, refreshRate: 60),
    DisplayMode(width: 1920, height: 1080, refreshRate: 60),
    DisplayMode(width: 1920, height: 1080, refreshRate: 50),
    DisplayMode(width: 1024, height: 768, refreshRate: 60, isPreferred: true),
    DisplayMode(width: 800, height: 600, refreshRate: 60.32),
]

@Test func preferredModeWinsEvenWhenNotFirst() {
    #expect(KMSSelection.chooseMode(vkmsLike) == 3)
}

@Test func configuredModeIsMatchedWithOrWithoutRate() {
    #expect(KMSSelection.chooseMode(vkmsLike, requested: ModeRequest("1920x1080@50")) == 2)
    #expect(KMSSelection.chooseMode(vkmsLike, requested: ModeRequest("1920x1080")) == 1)  // the faster one
    #expect(KMSSelection.chooseMode(vkmsLike, requested: ModeRequest("800x600@60")) == 4)  // within 0.5 Hz
    #expect(KMSSelection.chooseMode(vkmsLike, requested: ModeRequest("1280x720@60")) == nil)
    #expect(KMSSelection.chooseMode(vkmsLike, requested: ModeRequest("1920x1080@30")) == nil)
}

@Test func withoutPreferredTheLargestWins() {
    let modes = [DisplayMode(width: 1280, height: 800, refreshRate: 60),
                 DisplayMode(width: 1920, height: 1200, refreshRate: 50),
                 DisplayMode(width: 1920, height: 1200, refreshRate: 60),
                 DisplayMode(width: 1024, height: 600, refreshRate: 75)]
    #expect(KMSSelection.chooseMode(modes) == 2)
    #expect(KMSSelection.chooseMode([]) == nil)
}

@Test func modeRequestParsing() {
    #expect(ModeRequest("1920x1080@59.94") == ModeRequest(width: 1920, height: 1080, refreshRate: 59.94))
    #expect(ModeRequest("800x480") == ModeRequest(width: 800, height: 480))
    for bad in ["", "1920", "1920x", "x1080", "1920x1080@", "1920x1080@0", "-1x5", "1920x1080@60@1", "axb", "1920*1080"] {
        #expect(ModeRequest(bad) == nil, "\(bad)")
    }
}

private func connector(_ id: UInt32, _ name: String, connected: Bool, modes: Int = 1,
                       current: UInt32? = nil, encoders: [UInt32] = []) -> ConnectorSummary {
    ConnectorSummary(id: ConnectorID(rawValue: id), name: name, isConnected: connected,
                     modes: Array(repeating: DisplayMode(width: 800, height: 480, refreshRate: 60), count: modes),
                     currentEncoder: current.map(EncoderID.init), encoders: encoders.map(EncoderID.init))
}

@Test func firstConnectedConnectorWithModesIsChosen() {
    let list = [connector(30, "HDMI-A-1", connected: false), connector(31, "DSI-1", connected: true, modes: 0),
                connector(32, "HDMI-A-2", connected: true), connector(33, "DP-1", connected: true)]
    #expect(KMSSelection.chooseConnector(list) == 2)
    #expect(KMSSelection.chooseConnector(list, named: "DP-1") == 3)
    #expect(KMSSelection.chooseConnector(list, named: "HDMI-A-1") == nil)
    #expect(KMSSelection.chooseConnector([connector(30, "HDMI-A-1", connected: false)]) == nil)
}

@Test func crtcComesFromTheCurrentEncoderElsePossibleCRTCs() {
    let crtcs = [40, 41, 42].map(CRTCID.init)
    let encoders = [EncoderSummary(id: EncoderID(rawValue: 50), currentCRTC: CRTCID(rawValue: 41), possibleCRTCs: 0b111),
                    EncoderSummary(id: EncoderID(rawValue: 51), currentCRTC: nil, possibleCRTCs: 0b100)]
    // Bound: keep its CRTC.
    let bound = connector(32, "HDMI-A-1", connected: true, current: 50, encoders: [50])
    #expect(KMSSelection.chooseCRTC(for: bound, encoders: encoders, crtcs: crtcs) == CRTCID(rawValue: 41))
    // Unbound (as after boot on vkms): the first CRTC in the encoder's possible_crtcs mask.
    let unbound = connector(33, "DP-1", connected: true, encoders: [51])
    #expect(KMSSelection.chooseCRTC(for: unbound, encoders: encoders, crtcs: crtcs) == CRTCID(rawValue: 42))
    #expect(KMSSelection.chooseCRTC(for: unbound, encoders: encoders, crtcs: crtcs, taken: [CRTCID(rawValue: 42)]) == nil)
    // No encoder at all: no CRTC (an Optional, not −1).
    #expect(KMSSelection.chooseCRTC(for: connector(34, "X-1", connected: true), encoders: encoders, crtcs: crtcs) == nil)
}

@Test func drmErrorsSayWhatToDo() {
    let denied = DRMError.permissionDenied(card: "/dev/dri/card0", cause: SystemError(call: "open", context: "/dev/dri/card0", errno: EACCES))
    #expect(denied.description.contains("/dev/dri/card0") && denied.description.contains("video"))
    let master = DRMError.notMaster(card: "/dev/dri/card0", step: .setCRTC,
                                    cause: SystemError(call: "drmModeSetCrtc", context: "DRM card fd 3", errno: EACCES))
    #expect(master.description.contains("DRM master") && master.description.contains("setCRTC"))
}

@Test func openingWithoutACardFailsClearly() {
    // This machine has no /dev/dri: a clear error, not a crash.
    #expect(throws: DRMError.self) { try DRMOutput(.init(cardPath: "/nonexistent/card0")) }
    do {
        _ = try DRMOutput(.init(cardPath: "/nonexistent/card0"))
    } catch let error as DRMError {
        #expect(error == .call(card: "/nonexistent/card0", step: .open,
                               cause: SystemError(call: "open", context: "/nonexistent/card0", errno: ENOENT)))
    } catch {
        Issue.record("unexpected \(error)")
    }
}

/// Issue 34: a connector's `mmWidth` × `mmHeight` is the panel's size; 0 (no EDID) is unknown.
@Test func aConnectorsMillimetresAreItsPanelsSizeUnlessZero() {
    #expect(ConnectorSummary.physicalSize(millimetresWide: 344, high: 194) == Size(width: 344, height: 194))
    #expect(ConnectorSummary.physicalSize(millimetresWide: 0, high: 194) == nil)
    #expect(ConnectorSummary.physicalSize(millimetresWide: 344, high: 0) == nil)
}
