/// One HTTP request for `HTTPClient`.
public struct HTTPRequest: Sendable, Equatable {
    public struct Method: RawRepresentable, Sendable, Hashable, ExpressibleByStringLiteral {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(stringLiteral value: String) { self.rawValue = value }

        public static let get = Method(rawValue: "GET")
        public static let head = Method(rawValue: "HEAD")
        public static let post = Method(rawValue: "POST")
        public static let put = Method(rawValue: "PUT")
        public static let patch = Method(rawValue: "PATCH")
        public static let delete = Method(rawValue: "DELETE")
        public static let options = Method(rawValue: "OPTIONS")
    }

    package var method: Method
    /// An absolute `http` or `https` URL.
    package var url: String
    package var headers: HTTPHeaders
    package var body: [UInt8]
    /// The whole exchange (connect, send, receive) must finish within this.
    package var timeout: Duration
    /// Follow `3xx` responses (up to 10) instead of returning them.
    package var followRedirects: Bool
    /// A larger response body fails the request instead of filling memory.
    package var maximumResponseBytes: Int
    /// Concurrent HTTP/2 requests to one origin share a connection as multiplexed streams.
    package var httpVersion: HTTPVersion

    package init(
        method: Method = .get, url: String, headers: HTTPHeaders = [:], body: [UInt8] = [],
        timeout: Duration = .seconds(30), followRedirects: Bool = false, maximumResponseBytes: Int = 64 << 20,
        httpVersion: HTTPVersion = .http2
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.followRedirects = followRedirects
        self.maximumResponseBytes = maximumResponseBytes
        self.httpVersion = httpVersion
    }
}
