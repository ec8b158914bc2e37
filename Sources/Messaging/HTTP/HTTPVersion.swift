/// Which HTTP version a request asks for.
package enum HTTPVersion: Sendable, Equatable {
    /// HTTP/1.1 only.
    case http1_1
    /// HTTP/2 over TLS when the server offers it (ALPN), HTTP/1.1 otherwise and for cleartext `http://` URLs.
    case http2
    /// HTTP/2 from the first byte, without upgrade or ALPN: for cleartext HTTP/2 servers (test peers such as
    /// `nghttpd --no-tls`). An HTTP/1-only server fails the request. Debian 12's libcurl 7.88 fails requests that
    /// reuse such a connection ("Error in the HTTP2 framing layer"); serve tests over TLS to multiplex there.
    case http2PriorKnowledge
}
