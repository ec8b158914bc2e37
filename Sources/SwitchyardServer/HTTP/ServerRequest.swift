import Sockets

/// One HTTP request as a route handler sees it: the whole body has arrived (at most the server's limit).
package struct ServerRequest: Sendable {
    /// `GET`, `POST`, … as the client sent it.
    package var method: String { parts.method }
    /// The path without the query string, percent-decoded.
    package var path: String { parts.path }
    /// Query arguments, percent-decoded; the last one wins when a name repeats.
    package var query: [String: String] { parts.query }
    /// Header values by lower-cased name; repeated headers are joined with ", ".
    package var headers: RequestHeaders { parts.headers }
    package var body: [UInt8] { parts.body }
    /// The peer's IP address as text (`127.0.0.1`, `::1`); empty when unknown.
    package var remoteAddress: String {
        switch parts.peer {
        case .text(let text): text
        case .socket(let address): address?.text ?? ""
        }
    }

    /// What the client sent, behind one reference: a request is handed (and copied) all the way to its handler,
    /// and each copy of its eight counted fields, with their release, cost a served call more than routing it.
    private let parts: Parts

    private final class Parts: Sendable {
        let method: String
        let path: String
        let query: [String: String]
        let headers: RequestHeaders
        let body: [UInt8]
        /// The peer as given: a served request's socket address is made text only if asked for.
        let peer: Peer

        init(method: String, path: String, query: [String: String], headers: RequestHeaders, body: [UInt8], peer: Peer)
        {
            self.method = method
            self.path = path
            self.query = query
            self.headers = headers
            self.body = body
            self.peer = peer
        }
    }

    private enum Peer: Sendable {
        case text(String)
        case socket(PeerAddress?)
    }

    package init(
        method: String, path: String, query: [String: String] = [:], headers: RequestHeaders = [:],
        body: [UInt8] = [], remoteAddress: String = "127.0.0.1"
    ) {
        self.init(method: method, path: path, query: query, headers: headers, body: body, peer: .text(remoteAddress))
    }

    /// A request as the server read it from `peer`'s socket.
    init(
        method: String, path: String, query: [String: String], headers: RequestHeaders, body: [UInt8],
        peer: PeerAddress?
    ) {
        self.init(method: method, path: path, query: query, headers: headers, body: body, peer: .socket(peer))
    }

    private init(
        method: String, path: String, query: [String: String], headers: RequestHeaders, body: [UInt8], peer: Peer
    ) {
        parts = Parts(method: method, path: path, query: query, headers: headers, body: body, peer: peer)
    }

    /// Whether the request came from this machine (admin routes answer only these).
    package var isLoopback: Bool {
        remoteAddress == "::1" || remoteAddress.hasPrefix("127.") || remoteAddress.hasPrefix("::ffff:127.")
    }

    /// The token of an `Authorization: Bearer <token>` header.
    package var bearerToken: String? {
        bearerTokenSlice.map(String.init)
    }

    /// The token as a slice of its header: looking up a kept token needs no copy of its hundreds of bytes.
    var bearerTokenSlice: Substring? {
        guard var value = headers["authorization"] else { return nil }
        // The scheme matched as bytes in place, case-insensitively (`| 0x20` gives a lower-case letter only from its
        // two cases): `lowercased()` of a split-off word, or a walk through `utf8`'s iterators, cost every
        // authenticated request more than this whole check.
        let hasScheme = value.withUTF8 { bytes in
            guard bytes.count > 7, bytes[6] == UInt8(ascii: " ") else { return false }
            let scheme: StaticString = "bearer"
            return scheme.withUTF8Buffer { scheme in
                scheme.indices.allSatisfy { bytes[$0] | 0x20 == scheme[$0] }
            }
        }
        guard hasScheme else { return nil }
        let bytes = value.utf8
        // Trimmed scalar by scalar, of what `CharacterSet.whitespaces` holds (tab and the space separators):
        // Foundation's `trimmingCharacters` copies through NSString, a cost every authenticated request paid.
        func isWhitespace(_ scalar: Unicode.Scalar) -> Bool {
            scalar == "\t" || scalar.properties.generalCategory == .spaceSeparator
        }
        let rest = Substring(bytes.dropFirst(7))
        // Usually nothing to trim: a token starts and ends with a visible ASCII character.
        if let first = rest.utf8.first, let last = rest.utf8.last, (0x21...0x7E).contains(first),
            (0x21...0x7E).contains(last)
        {
            return rest
        }
        var token = rest.unicodeScalars[...]
        while let first = token.first, isWhitespace(first) { token.removeFirst() }
        while let last = token.last, isWhitespace(last) { token.removeLast() }
        return token.isEmpty ? nil : Substring(token)
    }
}
