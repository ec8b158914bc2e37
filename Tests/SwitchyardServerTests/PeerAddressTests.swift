import Sockets
import Testing

@testable import SwitchyardServer

/// Per-peer connection limits count by what one client holds: an IPv6 host gets a whole /64 and can pick any
/// address in it, so connections from one /64 count as one peer; IPv4 addresses count one by one.
@Suite struct PeerAddressTests {
    private func group(_ text: String) throws -> PeerAddress {
        try #require(PeerAddress(text)).limitGroup
    }

    @Test func anIPv6Slash64IsOnePeer() throws {
        #expect(try group("2001:db8:1:2::1") == group("2001:db8:1:2:ffff:1234:abcd:9"))
        #expect(try group("2001:db8:1:2::1") != group("2001:db8:1:3::1"))
        #expect(try group("fe80::1") == group("fe80::2"))
    }

    @Test func anIPv4AddressIsItsOwnPeer() throws {
        #expect(try group("10.0.0.1") != group("10.0.0.2"))
        #expect(try group("10.0.0.1") == group("10.0.0.1"))
    }

    /// An IPv4 client seen through a dual-stack socket keeps its whole address, rather than sharing `::ffff:0:0/64`
    /// with every IPv4 client.
    @Test func anIPv4MappedAddressIsItsOwnPeer() throws {
        #expect(try group("::ffff:10.0.0.1") != group("::ffff:10.0.0.2"))
    }

    @Test func textThatIsNoAddressIsNone() {
        #expect(PeerAddress("localhost") == nil)
        #expect(PeerAddress("2001:db8::zz") == nil)
    }
}
