/// Why an HTTP exchange produced no response. Messages name the URL without credentials or query and never
/// contain header values.
package enum HTTPClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The request cannot be sent as given (bad URL, a header with a line break).
    case invalidRequest(String)
    /// No connection: refused, unreachable, or the host name did not resolve.
    case couldNotConnect(String)
    /// The request's timeout passed before the response was complete.
    case timedOut(String)
    /// TLS handshake or certificate verification failed.
    case tls(String)
    /// The task waiting for the response was cancelled.
    case cancelled(String)
    /// Any other transport failure, with libcurl's error code.
    case other(code: Int, message: String)

    package var description: String {
        switch self {
        case .invalidRequest(let message): "invalid request: \(message)"
        case .couldNotConnect(let message): "could not connect: \(message)"
        case .timedOut(let message): "timed out: \(message)"
        case .tls(let message): "TLS failure: \(message)"
        case .cancelled(let message): "cancelled: \(message)"
        case .other(let code, let message): "transport error \(code): \(message)"
        }
    }
}
