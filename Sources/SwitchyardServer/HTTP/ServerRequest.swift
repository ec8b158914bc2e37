/// One HTTP request as a route handler sees it: the whole body has arrived (at most the server's limit).
public struct ServerRequest: Sendable {
    /// `GET`, `POST`, … as the client sent it.
    public var method: String
    /// The path without the query string, percent-decoded.
    public var path: String
    /// Query arguments, percent-decoded; the last one wins when a name repeats.
    public var query: [String: String]
    /// Header values by lower-cased name; repeated headers are joined with ", ".
    public var headers: RequestHeaders
    public var body: [UInt8]
    /// The peer's IP address as text (`127.0.0.1`, `::1`); empty when unknown.
    public var remoteAddress: String

    public init(
        method: String, path: String, query: [String: String] = [:], headers: RequestHeaders = [:],
        body: [UInt8] = [], remoteAddress: String = "127.0.0.1"
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.remoteAddress = remoteAddress
    }

    /// Whether the request came from this machine (admin routes answer only these).
    public var isLoopback: Bool {
        remoteAddress == "::1" || remoteAddress.hasPrefix("127.") || remoteAddress.hasPrefix("::ffff:127.")
    }

    /// The token of an `Authorization: Bearer <token>` header.
    public var bearerToken: String? {
        guard let value = headers["authorization"] else { return nil }
        // The scheme matched by bytes, case-insensitively (`| 0x20` gives a lower-case letter only from its two cases):
        // `lowercased()` of a split-off word cost every authenticated request a Unicode mapping.
        let bytes = value.utf8
        guard bytes.count > 7, bytes.prefix(6).lazy.map({ $0 | 0x20 }).elementsEqual("bearer".utf8),
            bytes.dropFirst(6).first == UInt8(ascii: " ")
        else { return nil }
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
            return String(rest)
        }
        var token = rest.unicodeScalars[...]
        while let first = token.first, isWhitespace(first) { token.removeFirst() }
        while let last = token.last, isWhitespace(last) { token.removeLast() }
        return token.isEmpty ? nil : String(Substring(token))
    }
}
