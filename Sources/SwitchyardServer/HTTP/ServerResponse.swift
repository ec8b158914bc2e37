import BSON

/// What a route handler answers: a status, headers and either a whole body or a server-sent event stream.
package struct ServerResponse: Sendable {
    package enum Body: Sendable {
        case bytes([UInt8])
        /// Written as events arrive until the stream or the server ends (`text/event-stream`).
        case events(EventStream)
        /// No answer at all: the connection is reset (for injecting network failures).
        case connectionReset
    }

    package var status: Int
    /// In order; a name may repeat.
    package var headers: [(name: String, value: String)]
    package var body: Body

    package init(status: Int = 200, headers: [(name: String, value: String)] = [], body: Body = .bytes([])) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON body that is already encoded.
    package static func json(_ bytes: [UInt8], status: Int = 200) -> ServerResponse {
        // With room for the CORS headers a client API answer gets next (`CrossOriginPolicy`): one allocation.
        var headers: [(name: String, value: String)] = []
        headers.reserveCapacity(3)
        headers.append(("Content-Type", "application/json"))
        return ServerResponse(status: status, headers: headers, body: .bytes(bytes))
    }

    /// A document as relaxed Extended JSON (plain JSON for plain values): what App Services answers outside
    /// function results.
    package static func json(_ document: BSONDocument, status: Int = 200) -> ServerResponse {
        json(document.extendedJSONBytes(mode: .relaxed), status: status)
    }

    package static func text(_ text: String, status: Int = 200, contentType: String = "text/plain; charset=utf-8")
        -> ServerResponse
    {
        ServerResponse(status: status, headers: [("Content-Type", contentType)], body: .bytes(Array(text.utf8)))
    }

    /// An empty answer with only a status (`204 No Content`, …).
    package static func empty(status: Int = 204) -> ServerResponse {
        ServerResponse(status: status)
    }

    /// A stream of server-sent events; the handler keeps `stream` and sends into it.
    package static func events(_ stream: EventStream) -> ServerResponse {
        ServerResponse(
            status: 200,
            headers: [("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache")],
            body: .events(stream))
    }

    /// Drops the connection unanswered with a TCP reset, as a failing network or server would.
    package static var connectionReset: ServerResponse {
        ServerResponse(status: 0, body: .connectionReset)
    }

    /// The first value of a header, by case-insensitive name.
    package func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}
