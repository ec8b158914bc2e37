import BSON
import Synchronization

/// The answer an endpoint's function shapes, as App Services' `response` object: status, headers and body. What
/// the function leaves unset is decided by the endpoint (`respond_result`).
public final class EndpointResponse: Sendable {
    /// What the function set, read once it returned.
    package struct Parts: Sendable {
        package var status: Int?
        /// In the order set; `setHeader` replaces every earlier value of its name.
        package var headers: [(name: String, value: String)] = []
        package var body: [UInt8]?
    }

    private let parts = Mutex(Parts())

    package init() {}

    /// The status code (100 to 599; others are refused when the response is sent).
    public func setStatusCode(_ code: Int) {
        parts.withLock { $0.status = code }
    }

    /// Sets the header to this one value.
    public func setHeader(_ name: String, _ value: String) {
        parts.withLock { parts in
            let lowered = name.lowercased()
            parts.headers.removeAll { $0.name.lowercased() == lowered }
            parts.headers.append((name, value))
        }
    }

    /// Adds a value to the header, after those it has.
    public func addHeader(_ name: String, _ value: String) {
        parts.withLock { $0.headers.append((name, value)) }
    }

    public func setBody(_ text: String) {
        parts.withLock { $0.body = Array(text.utf8) }
    }

    public func setBody(_ bytes: [UInt8]) {
        parts.withLock { $0.body = bytes }
    }

    package var current: Parts { parts.withLock { $0 } }
}
