@testable import FlickDaemon
import Testing

/// Where no udev daemon runs, DRM hotplug is read from the kernel's own uevents: the message as
/// the kernel sends it (`ACTION@DEVPATH`, then NUL-separated `KEY=VALUE` fields).
@Suite struct KernelUeventsTests {
    static func message(_ fields: [String]) -> ArraySlice<UInt8> {
        ArraySlice(fields.flatMap { Array($0.utf8) + [0] })
    }

    @Test func aDRMHotplugAndASyntheticOneAreHeard() {
        let hotplug = KernelUevents.parse(Self.message([
            "change@/devices/platform/vkms/drm/card0", "ACTION=change", "DEVPATH=/devices/platform/vkms/drm/card0",
            "SUBSYSTEM=drm", "HOTPLUG=1", "DEVNAME=dri/card0", "DEVTYPE=drm_minor", "SEQNUM=2301"]), subsystem: "drm")
        #expect(hotplug == DeviceEvent(action: "change", sysname: "card0", isHotplug: true))
        // `echo "change UUID HOTPLUG=1" > /sys/class/drm/card0/uevent`.
        let synthetic = KernelUevents.parse(Self.message([
            "change@/devices/platform/vkms/drm/card0", "ACTION=change", "DEVPATH=/devices/platform/vkms/drm/card0",
            "SUBSYSTEM=drm", "SYNTH_UUID=0f6f7c0e-2b1c-4d8e-9a51-5f1b1c2d3e4f", "SYNTH_ARG_HOTPLUG=1", "SEQNUM=2302"]),
            subsystem: "drm")
        #expect(synthetic?.isHotplug == true)
    }

    @Test func otherSubsystemsAndPlainChangesAreNoHotplug() {
        #expect(KernelUevents.parse(Self.message(["add@/devices/virtual/input/input9", "ACTION=add", "SUBSYSTEM=input"]),
                                    subsystem: "drm") == nil)
        let change = KernelUevents.parse(Self.message(["change@/devices/pci0000:00/drm/card1", "ACTION=change",
                                                       "DEVPATH=/devices/pci0000:00/drm/card1", "SUBSYSTEM=drm"]),
                                         subsystem: "drm")
        #expect(change?.isHotplug == false && change?.sysname == "card1")
        #expect(KernelUevents.parse(Self.message(["libudev", "garbage"]), subsystem: "drm") == nil)
    }
}
