import FlickDocument
import Glibc

// Confines itself exactly as flickd-render does (Sandbox.limit, fonts, Sandbox.confine), then
// makes the call named by its argument. The sandbox tests expect the forbidden ones to kill it
// with SIGSYS; `none` exits 0, `open-write` reports the errno the filter answers with.
func say(_ text: String) {
    let bytes = Array((text + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
}

let call = CommandLine.arguments.dropFirst().first ?? "none"
do {
    try Sandbox.limit(memoryMB: 512, highestDescriptor: 2)
    Sandbox.prepareFonts()
    try Sandbox.confine()
} catch {
    say("sandbox-check: \(error)")
    exit(71)
}
var result: Int = 0
switch call {
case "none": exit(0)
case "socket": result = Int(socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0))
case "socketpair":
    var pair: [Int32] = [0, 0]
    result = Int(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair))
case "connect": result = Int(connect(0, nil, 0))
case "execve": result = Int(execve("/bin/true", [nil], [nil]))
case "fork": result = Int(fork())
case "setrlimit":
    var unlimited = rlimit(rlim_cur: rlim_t.max, rlim_max: rlim_t.max)
    result = Int(setrlimit(__rlimit_resource_t(RLIMIT_AS.rawValue), &unlimited))
case "open-write":
    let fd = open("/tmp/flickd-render-sandbox-check", O_WRONLY | O_CREAT, 0o600)
    print(fd < 0 ? "errno \(errno)" : "opened")
    exit(fd < 0 ? 3 : 0)
case "open-read":
    let fd = open("/etc/fonts/fonts.conf", O_RDONLY)
    exit(fd < 0 ? 3 : 0)
default:
    say("sandbox-check: unknown call \(call)")
    exit(64)
}
print("survived \(call): \(result)")
exit(0)
