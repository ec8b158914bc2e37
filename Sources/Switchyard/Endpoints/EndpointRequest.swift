import BSON

/// The HTTPS request an endpoint's function answers (App Services' `context.request` and the `request` argument
/// of an endpoint function).
public struct EndpointRequest: Sendable {
    /// `GET`, `POST`, …
    public let method: String
    /// The path and query as the client sent them (`/app/books/endpoint/latest?limit=3`).
    public let url: String
    /// The query's parameters; a name given twice keeps its first value, as App Services' `query` does.
    public let query: [String: String]
    /// Header values by name as sent, several for a header given several times.
    public let headers: [String: [String]]
    public let body: [UInt8]
    /// The client's IP address.
    public let remoteAddress: String

    package init(
        method: String, url: String, query: [String: String], headers: [String: [String]], body: [UInt8],
        remoteAddress: String
    ) {
        self.method = method
        self.url = url
        self.query = query
        self.headers = headers
        self.body = body
        self.remoteAddress = remoteAddress
    }

    /// The body as UTF-8 text (App Services' `body.text()`).
    public var bodyText: String { String(decoding: body, as: UTF8.self) }

    /// The first value of a header, its name in any case.
    public func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.key.lowercased() == wanted }?.value.first
    }

    /// What a callable function serving an endpoint gets as its one argument, App Services' request object:
    /// `{query, headers, body}` (the body as binary, as there).
    public var document: BSONDocument {
        var query = BSONDocument()
        for (name, value) in self.query.sorted(by: { $0.key < $1.key }) { query.append(name, .string(value)) }
        var headers = BSONDocument()
        for (name, values) in self.headers.sorted(by: { $0.key < $1.key }) {
            headers.append(name, .array(values.map { .string($0) }))
        }
        return [
            "query": .document(query), "headers": .document(headers),
            "body": .binary(BSONBinary(data: body)),
        ]
    }
}
