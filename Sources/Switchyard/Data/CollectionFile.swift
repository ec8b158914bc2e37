import BSON
import Dispatch
import DocumentStore
import Synchronization

/// One `<db>.<collection>.json` file read into documents: one canonical (or relaxed) Extended JSON
/// document per line, blank lines ignored; a file whose first character is `[` is read as one JSON
/// array of documents instead (as `mongoexport --jsonArray` writes).
struct CollectionFile: Sendable {
    var namespace: Namespace
    /// The file as errors name it.
    var path: String
    var documents: [BSONDocument]
    /// The line each document is on (1-based), for errors the store finds; empty for an array file.
    var lines: [Int]

    /// Reads every document; the first syntax error, in file order, names its line and column.
    /// `parsed` hears how many bytes each finished chunk of lines held (from any thread).
    static func parse(
        _ bytes: [UInt8], path: String, namespace: Namespace, parsed: @Sendable (Int) -> Void = { _ in }
    ) throws(DataImportError) -> CollectionFile {
        let firstByte = bytes.first { !Self.isWhitespace($0) }
        if firstByte == UInt8(ascii: "[") {
            do {
                return CollectionFile(
                    namespace: namespace, path: path, documents: try ExtendedJSON.parseDocuments(bytes), lines: [])
            } catch {
                throw DataImportError(file: path, line: error.line, column: error.column, message: error.message)
            }
        }
        let lines = Self.documentLines(bytes)
        let documents = try Self.parseInParallel(bytes, lines: lines, path: path, parsed: parsed)
        return CollectionFile(namespace: namespace, path: path, documents: documents, lines: lines.map(\.number))
    }

    /// The error for the document at `position` that the store refused.
    func error(atDocument position: Int, _ message: String) -> DataImportError {
        guard position < lines.count else {
            return DataImportError(file: path, message: "document \(position + 1): \(message)")
        }
        return DataImportError(file: path, line: lines[position], column: 1, message: message)
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\n")
            || byte == UInt8(ascii: "\r")
    }

    private struct Line: Sendable {
        var number: Int
        var range: Range<Int>
    }

    /// The lines that hold something besides whitespace.
    private static func documentLines(_ bytes: [UInt8]) -> [Line] {
        var lines: [Line] = []
        var start = 0
        var number = 1
        bytes.withUnsafeBufferPointer { buffer in
            while start < buffer.count {
                let end = buffer[start...].firstIndex(of: UInt8(ascii: "\n")) ?? buffer.count
                if buffer[start..<end].contains(where: { !isWhitespace($0) }) {
                    lines.append(Line(number: number, range: start..<end))
                }
                start = end + 1
                number += 1
            }
        }
        return lines
    }

    /// Parses the lines in chunks on every core (parsing is most of an import's work).
    private static func parseInParallel(
        _ bytes: [UInt8], lines: [Line], path: String, parsed: @Sendable (Int) -> Void
    ) throws(DataImportError) -> [BSONDocument] {
        let chunkSize = 2_048
        let chunks = (lines.count + chunkSize - 1) / chunkSize
        let results = Mutex<[Int: Result<[BSONDocument], DataImportError>]>([:])
        DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
            let slice = lines[(chunk * chunkSize)..<min(lines.count, (chunk + 1) * chunkSize)]
            let result = Result { () throws(DataImportError) in try parse(bytes, slice, path: path) }
            results.withLock { $0[chunk] = result }
            if let first = slice.first, let last = slice.last { parsed(last.range.upperBound - first.range.lowerBound) }
        }
        var documents: [BSONDocument] = []
        documents.reserveCapacity(lines.count)
        let collected = results.withLock { $0 }
        for chunk in 0..<chunks {
            guard let result = collected[chunk] else { continue }
            documents += try result.get()
        }
        return documents
    }

    private static func parse(_ bytes: [UInt8], _ lines: ArraySlice<Line>, path: String) throws(DataImportError)
        -> [BSONDocument]
    {
        var documents: [BSONDocument] = []
        documents.reserveCapacity(lines.count)
        for line in lines {
            do {
                documents.append(try ExtendedJSON.parseDocument(bytes[line.range]))
            } catch {
                let atEnd = error.offset >= line.range.count
                throw DataImportError(
                    file: path, line: line.number, column: error.column,
                    message: error.message + (atEnd ? " (each line holds one whole document)" : ""))
            }
        }
        return documents
    }
}
