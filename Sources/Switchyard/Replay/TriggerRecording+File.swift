import BSON
import DocumentStore
import Foundation

/// A recording's file: JSON lines of relaxed Extended JSON. The first line is the header
/// `{"format": "switchyard-trigger-recording", "version": 2, "trigger", "function", "since", "until",
/// "recordedAt", "events", "notes"}`; then one line per snapshot document
/// `{"snapshot": {"db", "coll"}, "document"}`; then one line per change of the window, in log order,
/// `{"change", "event"?, "runs"?: [{"invocation", "attempt", "start", "durationMs", "outcome", "error"?, "logs",
/// "messages", "writes"}]}` (`event` and `runs` for the changes the trigger took; `writes` null where the change
/// log could not say). Version 1 files, whose runs have no `writes`, are read as runs with unknown writes.
extension TriggerRecording {
    /// Why a recording cannot be read: where and what.
    package struct FileError: Error, Sendable, Equatable, CustomStringConvertible {
        package var description: String

        init(_ path: String, line: Int, column: Int = 1, _ message: String) {
            description = "\(path):\(line):\(column): \(message)"
        }

        init(_ description: String) {
            self.description = description
        }
    }

    /// The file's bytes.
    package var fileContents: Data {
        var data = Data()
        func line(_ document: BSONDocument) {
            data.append(contentsOf: document.extendedJSONBytes(mode: .relaxed))
            data.append(UInt8(ascii: "\n"))
        }
        line([
            "format": .string(Self.format), "version": .int32(Int32(Self.version)), "trigger": .string(trigger),
            "function": .string(function), "since": since.map { .datetime(BSONDate($0)) } ?? .null,
            "until": until.map { .datetime(BSONDate($0)) } ?? .null, "recordedAt": .datetime(BSONDate(recordedAt)),
            "events": .int64(Int64(eventCount)), "notes": .array(notes.map { .string($0) }),
        ])
        for collection in snapshot {
            let namespace: BSONDocument = [
                "db": .string(collection.namespace.database), "coll": .string(collection.namespace.collection),
            ]
            for document in collection.documents {
                line(["snapshot": .document(namespace), "document": .document(document)])
            }
        }
        for change in changes {
            var document: BSONDocument = ["change": .document(change.change.raw)]
            if let delivered = change.delivered {
                document.append("event", .document(delivered.raw))
                document.append("runs", .array(change.runs.map { .document($0.document) }))
            }
            line(document)
        }
        return data
    }

    /// Writes the file whole or not at all (a temporary file renamed over `path`).
    package func write(to path: String) throws(FileError) {
        do {
            try fileContents.write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw FileError("cannot write \(path): \(error.localizedDescription)")
        }
    }

    /// Reads a recording written by `write(to:)`.
    package init(contentsOf path: String) throws(FileError) {
        let data: Data
        do {
            data = try LocalFile.contents(path)
        } catch {
            throw FileError(error.description)
        }
        try self.init(data: data, path: path)
    }

    package init(data: Data, path: String) throws(FileError) {
        let lines = data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        var documents: [(line: Int, document: BSONDocument)] = []
        for (index, bytes) in lines.enumerated() where !bytes.allSatisfy({ $0 == 32 || $0 == 13 || $0 == 9 }) {
            do {
                documents.append((index + 1, try ExtendedJSON.parseDocument(bytes)))
            } catch {
                throw FileError(path, line: index + 1, column: error.column, error.message)
            }
        }
        guard let (headerLine, header) = documents.first else {
            throw FileError(path, line: 1, "empty file: not a trigger recording (switchyard record writes one)")
        }
        guard header["format"]?.stringValue == Self.format else {
            throw FileError(
                path, line: headerLine, "not a trigger recording: the first line has no format \"\(Self.format)\"")
        }
        guard let version = header["version"]?.int64Value, Self.readableVersions.contains(version) else {
            throw FileError(
                path, line: headerLine,
                "recording format version \(header["version"].map { $0.extendedJSON(mode: .relaxed) } ?? "missing") is not supported (this switchyard reads versions \(Self.readableVersions.lowerBound) to \(Self.readableVersions.upperBound))"
            )
        }
        guard let trigger = header["trigger"]?.stringValue, let function = header["function"]?.stringValue else {
            throw FileError(path, line: headerLine, "the header names no trigger and function")
        }
        func date(_ value: BSON?) -> Date? {
            if case .datetime(let date)? = value { return date.date }
            return nil
        }
        self.init(
            trigger: trigger, function: function, since: date(header["since"]), until: date(header["until"]),
            recordedAt: date(header["recordedAt"]) ?? Date(),
            notes: header["notes"]?.arrayValue?.compactMap(\.stringValue) ?? [])
        var collections: [Namespace: Int] = [:]
        for (line, document) in documents.dropFirst() {
            if let namespace = document["snapshot"]?.documentValue {
                guard let database = namespace["db"]?.stringValue, let collection = namespace["coll"]?.stringValue,
                    let contents = document["document"]?.documentValue
                else { throw FileError(path, line: line, "a snapshot line needs snapshot: {db, coll} and document") }
                let name = Namespace(database: database, collection: collection)
                if let index = collections[name] {
                    snapshot[index].documents.append(contents)
                } else {
                    collections[name] = snapshot.count
                    snapshot.append(Collection(namespace: name, documents: [contents]))
                }
            } else if let raw = document["change"]?.documentValue {
                changes.append(try Self.change(raw, of: document, path: path, line: line))
            } else {
                throw FileError(path, line: line, "expected a snapshot or a change line")
            }
        }
    }

    private static func change(_ raw: BSONDocument, of line: BSONDocument, path: String, line number: Int)
        throws(FileError) -> Change
    {
        let change: ChangeEvent
        do {
            change = try ChangeEvent(raw: raw)
        } catch {
            throw FileError(path, line: number, "change: \(error.message)")
        }
        guard let event = line["event"]?.documentValue else { return Change(change: change) }
        var runs: [Run] = []
        for value in line["runs"]?.arrayValue ?? [] {
            guard let document = value.documentValue, let run = Run(document: document) else {
                throw FileError(
                    path, line: number,
                    "a run needs invocation, attempt, start, durationMs, outcome, logs and messages")
            }
            runs.append(run)
        }
        return Change(
            change: change, delivered: ChangeEvent(document: event, id: change.id, operationType: change.operationType),
            runs: runs)
    }
}

extension TriggerRecording.Run {
    var document: BSONDocument {
        var document: BSONDocument = [
            "invocation": .objectId(id), "attempt": .int64(Int64(attempt)), "start": .datetime(BSONDate(start)),
            "durationMs": .double(duration.milliseconds), "outcome": .string(outcome.rawValue),
        ]
        if let error { document.append("error", .string(error)) }
        document.append("logs", .array(logs.map { .string($0) }))
        document.append("messages", .array(messages.map { .document($0) }))
        document.append("writes", writes.map { .array($0.map { .document($0) }) } ?? .null)
        return document
    }

    init?(document: BSONDocument) {
        guard case .objectId(let id)? = document["invocation"], let attempt = document["attempt"]?.int64Value,
            case .datetime(let start)? = document["start"], let milliseconds = document["durationMs"]?.doubleValue,
            let outcome = document["outcome"]?.stringValue.flatMap(InvocationRecord.Outcome.init(rawValue:)),
            let logs = document["logs"]?.arrayValue, let messages = document["messages"]?.arrayValue
        else { return nil }
        self.init(
            InvocationRecord(
                id: id, function: "", attempt: Int(attempt), userId: "", start: start.date,
                duration: .milliseconds(milliseconds), outcome: outcome, error: document["error"]?.stringValue,
                logs: logs.compactMap(\.stringValue)),
            messages: messages.compactMap(\.documentValue),
            writes: document["writes"]?.arrayValue?.compactMap(\.documentValue))
    }
}
