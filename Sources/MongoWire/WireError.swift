import DocumentStore

/// A request the server cannot take: answered as a MongoDB error where the message could be read, else the
/// connection is closed (`closesConnection`), as mongod does with a message it cannot frame.
package struct WireError: Error, Sendable, CustomStringConvertible {
    package var code: StoreError.Code
    package var message: String
    /// The bytes cannot be trusted to say where the next message starts.
    package var closesConnection: Bool

    package init(code: StoreError.Code, message: String, closesConnection: Bool = false) {
        self.code = code
        self.message = message
        self.closesConnection = closesConnection
    }

    package var description: String { "\(code): \(message)" }

    static func invalidMessage(_ message: String, closing: Bool = false) -> WireError {
        WireError(code: 9, message: message, closesConnection: closing)
    }
}
