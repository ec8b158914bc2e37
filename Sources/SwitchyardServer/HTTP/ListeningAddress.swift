import Foundation

/// The socket address a host name or literal and a port resolve to, for libmicrohttpd's `SOCK_ADDR` option.
struct ListeningAddress {
    private var storage = sockaddr_storage()
    let isIPv6: Bool

    init(host: String, port: UInt16) throws(HTTPServerError) {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE
        var result: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &result)
        guard status == 0, let first = result, let address = first.pointee.ai_addr else {
            throw HTTPServerError(message: "cannot resolve host '\(host)': \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(result) }
        isIPv6 = first.pointee.ai_family == AF_INET6
        withUnsafeMutableBytes(of: &storage) { target in
            target.copyMemory(
                from: UnsafeRawBufferPointer(start: address, count: Int(first.pointee.ai_addrlen)))
        }
    }

    mutating func withSocketAddress<T>(_ body: (UnsafeMutableRawPointer) -> T) -> T {
        withUnsafeMutableBytes(of: &storage) { body($0.baseAddress!) }
    }
}
