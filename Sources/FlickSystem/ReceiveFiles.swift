import Glibc

/// One `recvmsg` on the socket `fd`: the bytes into `buffer` (up to its count), and the files
/// passed with them (`SCM_RIGHTS`, close-on-exec) appended to `files`, which the caller then
/// owns. A client's `snapshot` file and a provider's pool arrive this way.
/// - Returns: the bytes read, 0 at the end of the stream, -1 with `errno` set.
public func receiveWithFiles(on fd: Int32, into buffer: inout [UInt8], files: inout [Int32]) -> Int {
    let header = MemoryLayout<cmsghdr>.size
    var control = [UInt8](repeating: 0, count: header + 4 * MemoryLayout<Int32>.size)
    return buffer.withUnsafeMutableBytes { bytes -> Int in
        var iov = iovec(iov_base: bytes.baseAddress, iov_len: bytes.count)
        return control.withUnsafeMutableBytes { raw -> Int in
            var message = msghdr()
            message.msg_control = raw.baseAddress
            message.msg_controllen = raw.count
            let n = withUnsafeMutablePointer(to: &iov) { iovPointer in
                message.msg_iov = iovPointer
                message.msg_iovlen = 1
                return recvmsg(fd, &message, Int32(MSG_CMSG_CLOEXEC))
            }
            guard n >= 0 else { return n }
            var offset = 0
            while offset + header <= message.msg_controllen {
                let cmsg = raw.load(fromByteOffset: offset, as: cmsghdr.self)
                guard cmsg.cmsg_len >= header else { break }
                if cmsg.cmsg_level == SOL_SOCKET && cmsg.cmsg_type == Int32(SCM_RIGHTS) {
                    for i in 0..<(cmsg.cmsg_len - header) / MemoryLayout<Int32>.size {
                        files.append(raw.loadUnaligned(fromByteOffset: offset + header + i * 4, as: Int32.self))
                    }
                }
                offset += (cmsg.cmsg_len + 7) & ~7
            }
            return n
        }
    }
}
