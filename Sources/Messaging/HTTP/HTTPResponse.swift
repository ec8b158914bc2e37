import BSON
import Foundation

/// The final response to an `HTTPRequest` (after redirects, when they are followed).
public struct HTTPResponse: Sendable, Equatable {
    public var status: Int
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// The HTTP version the exchange used: `"1.0"`, `"1.1"`, `"2"` or `"3"`.
    public var protocolVersion: String

    public init(status: Int, headers: HTTPHeaders = [:], body: [UInt8] = [], protocolVersion: String = "1.1") {
        self.status = status
        self.headers = headers
        self.body = body
        self.protocolVersion = protocolVersion
    }

    /// 200…299.
    public var isSuccess: Bool { (200..<300).contains(status) }

    /// The body as UTF-8 text (invalid bytes become U+FFFD).
    public var text: String { String(decoding: body, as: UTF8.self) }

    /// Whether `Content-Type` says JSON (`application/json`, or any `+json` type).
    public var isJSON: Bool {
        guard let contentType = headers["Content-Type"] else { return false }
        let mediaType = contentType.split(separator: ";", maxSplits: 1).first.map {
            $0.trimmingCharacters(in: .whitespaces).lowercased()
        }
        guard let mediaType else { return false }
        return mediaType == "application/json" || mediaType.hasSuffix("+json")
    }

    /// The body read as Extended JSON when the content type is JSON; nil for other content types and for an
    /// empty body. A JSON content type with a body that does not parse is an error saying where.
    public func decodeJSON() throws(ExtendedJSONError) -> BSON? {
        guard isJSON, !body.isEmpty else { return nil }
        return try ExtendedJSON.parseValue(body)
    }

    /// `decodeJSON()`, with unreadable JSON as nil too.
    public var json: BSON? { try? decodeJSON() }
}
