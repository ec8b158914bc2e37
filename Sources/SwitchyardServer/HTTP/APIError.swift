import BSON

/// An error as App Services answers it: `{"error": "...", "error_code": "...", "link": ...}` with an HTTP
/// status. The Realm SDKs read `error_code` to decide what to do (`InvalidSession` makes them refresh).
package struct APIError: Error, Sendable, Equatable {
    package var status: Int
    /// App Services' code name: `InvalidSession`, `FunctionNotFound`, `AppNotFound`, ….
    package var code: String
    /// What went wrong and where, for people. Never a secret.
    package var message: String
    /// Where to read more; when nil the body links the dashboard's log (App Services links its app logs).
    /// Always a string: the Realm SDKs read `link` as one and drop the whole error otherwise.
    package var link: String?
    /// Whole seconds for a `Retry-After` header (429, 503): when the client may try again.
    package var retryAfterSeconds: Int?

    package init(status: Int, code: String, message: String, link: String? = nil, retryAfterSeconds: Int? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.link = link
        self.retryAfterSeconds = retryAfterSeconds
    }

    package var response: ServerResponse { response(defaultLink: "") }

    /// The error's body, linking `defaultLink` when the error names no link of its own.
    package func response(defaultLink: String) -> ServerResponse {
        let body: BSONDocument = [
            "error": .string(message), "error_code": .string(code), "link": .string(link ?? defaultLink),
        ]
        var response = ServerResponse.json(body, status: status)
        if let retryAfterSeconds { response.headers.append(("Retry-After", String(retryAfterSeconds))) }
        return response
    }
}

extension APIError {
    package static func notFound(_ message: String) -> APIError {
        APIError(status: 404, code: "NotFound", message: message)
    }

    package static func methodNotAllowed(_ method: String, _ path: String, allowed: [String]) -> APIError {
        APIError(
            status: 405, code: "MethodNotAllowed",
            message: "\(method) is not allowed on \(path) (allowed: \(allowed.joined(separator: ", ")))")
    }

    package static func payloadTooLarge(limit: Int) -> APIError {
        APIError(
            status: 413, code: "PayloadTooLarge", message: "the request body is larger than \(limit) bytes")
    }

    package static func badRequest(_ message: String, code: String = "BadRequest") -> APIError {
        APIError(status: 400, code: code, message: message)
    }

    package static func internalError(_ message: String) -> APIError {
        APIError(status: 500, code: "InternalServerError", message: message)
    }

    /// 429 `TooManyRequests`, with `Retry-After` rounded up to whole seconds (at least one).
    package static func tooManyRequests(_ message: String, retryAfter: Duration) -> APIError {
        let (seconds, attoseconds) = retryAfter.components
        let wait = max(1, Int(seconds) + (attoseconds > 0 ? 1 : 0))
        return APIError(status: 429, code: "TooManyRequests", message: message, retryAfterSeconds: wait)
    }
}

extension APIError {
    /// 414: the request line is longer than the server takes.
    static func uriTooLong(limit: Int) -> APIError {
        APIError(status: 414, code: "URITooLong", message: "the request line is longer than \(limit) bytes")
    }

    /// 431: the request's head (request line and header fields) is larger than the server takes.
    static func headersTooLarge(limit: Int) -> APIError {
        APIError(
            status: 431, code: "RequestHeaderFieldsTooLarge",
            message: "the request line and header fields are larger than \(limit) bytes")
    }

    /// 431: the request has more header fields than the server takes.
    static func headersTooLarge(fields: Int) -> APIError {
        APIError(
            status: 431, code: "RequestHeaderFieldsTooLarge",
            message: "the request has more than \(fields) header fields")
    }

    /// 505: a well-formed HTTP version other than 1.x.
    static func httpVersionNotSupported(_ version: String) -> APIError {
        APIError(
            status: 505, code: "HTTPVersionNotSupported", message: "\(version) is not supported: send HTTP/1.1")
    }
}
