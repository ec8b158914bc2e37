/// The sizes the handshake announces and the framing enforces, mongod's own.
package enum WireLimits {
    package static let maxBsonObjectSize = 16 * 1024 * 1024
    package static let maxMessageSizeBytes = 48_000_000
    package static let maxWriteBatchSize = 100_000
    /// The smallest message: its 16-byte header and an OP_MSG's flags.
    package static let headerSize = 16
}
