import BSON

/// One command read off the wire: its body with any document sequences merged in as arrays, and how the
/// reply goes back.
package struct WireRequest: Sendable {
    package enum Kind: Sendable, Equatable {
        /// OP_MSG; `moreToCome` asks for no reply.
        case message(moreToCome: Bool)
        /// OP_QUERY on `<database>.$cmd`, answered with OP_REPLY.
        case query
    }

    package var requestID: Int32
    package var kind: Kind
    package var command: BSONDocument
    /// The database the command runs in (`$db`, or the OP_QUERY namespace's prefix).
    package var database: String
    /// The compressor the request came with, which the reply uses too (2 is zlib, 0 none).
    package var compressor: UInt8?
}

/// Decodes and encodes messages: a pure function of bytes, so the fuzzer can drive it directly.
package enum WireCodec {
    /// Decodes one whole message (header included); `bytes.count` must be the header's length.
    package static func decode(_ bytes: [UInt8]) throws(WireError) -> WireRequest {
        var reader = WireReader(bytes)
        let length = try reader.int32("length")
        guard Int(length) == bytes.count else {
            throw .invalidMessage("the message's length \(length) is not its \(bytes.count) bytes", closing: true)
        }
        let requestID = try reader.int32("requestID")
        _ = try reader.int32("responseTo")
        let opCode = try reader.int32("opCode")
        return try decodeBody(opCode: opCode, requestID: requestID, reader: &reader, compressor: nil)
    }

    private static func decodeBody(
        opCode: Int32, requestID: Int32, reader: inout WireReader, compressor: UInt8?
    ) throws(WireError) -> WireRequest {
        switch WireOpCode(rawValue: opCode) {
        case .message: return try decodeMessage(requestID: requestID, reader: &reader, compressor: compressor)
        case .query: return try decodeQuery(requestID: requestID, reader: &reader, compressor: compressor)
        case .compressed:
            guard compressor == nil else { throw .invalidMessage("an OP_COMPRESSED inside an OP_COMPRESSED") }
            let original = try reader.int32("originalOpcode")
            let size = Int(try reader.int32("uncompressedSize"))
            let id = try reader.uint8("compressorId")
            guard size >= 0, size <= WireLimits.maxMessageSizeBytes else {
                throw .invalidMessage("the compressed message announces \(size) bytes, over maxMessageSizeBytes")
            }
            let payload = reader.rest()
            let inflated: [UInt8]
            switch id {
            case 0: inflated = payload
            case 2: inflated = try Zlib.decompress(payload, size: size)
            default: throw .invalidMessage("compressor \(id) is not supported (zlib, 2, is)")
            }
            guard inflated.count == size else {
                throw .invalidMessage("the message's uncompressedSize \(size) is not its \(inflated.count) bytes")
            }
            var inner = WireReader(inflated)
            return try decodeBody(opCode: original, requestID: requestID, reader: &inner, compressor: id)
        case .reply, nil:
            throw .invalidMessage("opcode \(opCode) is not one a client sends (OP_MSG, OP_QUERY, OP_COMPRESSED)")
        }
    }

    private static func decodeMessage(requestID: Int32, reader: inout WireReader, compressor: UInt8?)
        throws(WireError) -> WireRequest
    {
        let flags = UInt32(bitPattern: try reader.int32("flagBits"))
        let checksumPresent = flags & 1 != 0
        let moreToCome = flags & 2 != 0
        // Bits 0-15 are required to be understood; of those only the first two are defined.
        guard flags & 0xFFFC == 0 else {
            throw .invalidMessage(
                "OP_MSG flag bits \(String(flags, radix: 2)) hold a required bit this server does not know")
        }
        var end = reader.end
        if checksumPresent {
            guard reader.remaining >= 4 else { throw .invalidMessage("the OP_MSG ends before its checksum") }
            end -= 4
            var tail = WireReader(reader.bytes, from: end)
            let expected = UInt32(bitPattern: try tail.int32("checksum"))
            // The checksum covers the whole message as sent; inside OP_COMPRESSED it cannot be checked here.
            if compressor == nil, CRC32C.checksum(reader.bytes[0..<end]) != expected {
                throw .invalidMessage("the OP_MSG's checksum does not match its bytes", closing: true)
            }
        }
        var sections = WireReader(reader.bytes, from: reader.offset, to: end)
        var body: BSONDocument?
        var sequences: [(String, [BSON])] = []
        while sections.remaining > 0 {
            switch try sections.uint8("section kind") {
            case 0:
                guard body == nil else { throw .invalidMessage("the OP_MSG has two body sections") }
                body = try parse(try sections.document("body"), "body")
            case 1:
                let start = sections.offset
                let size = Int(try sections.int32("sequence size"))
                guard size >= 5, size <= sections.remaining + 4 else {
                    throw .invalidMessage("a document sequence's size \(size) does not fit the message")
                }
                var sequence = WireReader(sections.bytes, from: sections.offset, to: start + size)
                let identifier = try sequence.cString("sequence identifier")
                var documents: [BSON] = []
                while sequence.remaining > 0 {
                    documents.append(.document(try parse(try sequence.document("sequence document"), identifier)))
                }
                sequences.append((identifier, documents))
                sections.offset = start + size
            case let kind:
                throw .invalidMessage("section kind \(kind) is not one of OP_MSG's (0 body, 1 document sequence)")
            }
        }
        guard var command = body else { throw .invalidMessage("the OP_MSG has no body section") }
        for (identifier, documents) in sequences {
            guard !command.contains(identifier) else {
                throw .invalidMessage("'\(identifier)' is both in the body and a document sequence")
            }
            command.append(identifier, .array(documents))
        }
        guard let database = command["$db"]?.stringValue, !database.isEmpty else {
            throw WireError(code: 40571, message: "OP_MSG requests require a $db argument")
        }
        return WireRequest(
            requestID: requestID, kind: .message(moreToCome: moreToCome), command: command, database: database,
            compressor: compressor)
    }

    private static func decodeQuery(requestID: Int32, reader: inout WireReader, compressor: UInt8?)
        throws(WireError) -> WireRequest
    {
        _ = try reader.int32("flags")
        let namespace = try reader.cString("fullCollectionName")
        _ = try reader.int32("numberToSkip")
        _ = try reader.int32("numberToReturn")
        var query = try parse(try reader.document("query"), "query")
        guard namespace.hasSuffix(".$cmd"), namespace.count > 5 else {
            throw WireError(
                code: 352, message: "OP_QUERY is no longer supported for '\(namespace)'; only commands on <db>.$cmd are"
            )
        }
        // Older drivers wrap the command as {$query: {...}, $readPreference: ...}.
        if case .document(let inner)? = query["$query"] ?? query["query"], query.keys.first?.hasPrefix("$") == true {
            query = inner
        }
        return WireRequest(
            requestID: requestID, kind: .query, command: query, database: String(namespace.dropLast(5)),
            compressor: compressor)
    }

    private static func parse(_ bytes: [UInt8], _ what: String) throws(WireError) -> BSONDocument {
        do {
            return try BSONDocument(bsonBytes: bytes)
        } catch {
            throw .invalidMessage("the \(what) is not valid BSON: \(error)")
        }
    }

    /// The reply to `request`: OP_MSG, or OP_REPLY to an OP_QUERY, compressed as the request was.
    package static func encodeReply(_ reply: BSONDocument, to request: WireRequest, requestID: Int32) -> [UInt8] {
        let document = (try? reply.bsonBytes) ?? (try? encodableError(reply).bsonBytes) ?? []
        var body = WireWriter()
        let opCode: WireOpCode
        switch request.kind {
        case .message:
            opCode = .message
            body.int32(0)
            body.bytes.append(0)
            body.bytes += document
        case .query:
            opCode = .reply
            body.int32(8)  // AwaitCapable
            body.int64(0)
            body.int32(0)
            body.int32(1)
            body.bytes += document
        }
        var message = WireWriter()
        message.int32(0)
        message.int32(requestID)
        message.int32(request.requestID)
        if let compressor = request.compressor, compressor == 0 || compressor == 2,
            let payload = compressor == 2 ? Zlib.compress(body.bytes) : body.bytes
        {
            message.int32(WireOpCode.compressed.rawValue)
            message.int32(opCode.rawValue)
            message.int32(Int32(body.bytes.count))
            message.bytes.append(compressor)
            message.bytes += payload
        } else {
            message.int32(opCode.rawValue)
            message.bytes += body.bytes
        }
        message.patchLength()
        return message.bytes
    }

    /// What is sent when a reply cannot be encoded (a document over BSON's limits).
    private static func encodableError(_ reply: BSONDocument) -> BSONDocument {
        [
            "ok": .double(0), "errmsg": .string("the reply could not be encoded as BSON"), "code": .int32(10334),
            "codeName": .string("BSONObjectTooLarge"),
        ]
    }
}
