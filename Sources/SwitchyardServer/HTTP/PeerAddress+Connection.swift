import CMicroHTTPD
import Sockets

extension PeerAddress {
    /// The connection's peer; nil when libmicrohttpd does not know it or it is neither IPv4 nor IPv6.
    init?(of connection: OpaquePointer) {
        self.init { cmhd_client_address(connection, $0.assumingMemoryBound(to: UInt8.self)) }
    }
}
