import BSON
import DocumentStore

extension ReplayReport {
    /// The report for a terminal: a line per event, details under the ones that differ, then the summary (the
    /// recording's notes are the caller's to show, as warnings).
    package var lines: [String] {
        var lines = ["replay of trigger \(trigger) with function \(function)"]
        for event in events {
            let target = [
                event.namespace.map { "\($0.database).\($0.collection)" },
                event.documentKey.map { $0.extendedJSON(mode: .relaxed) },
            ].compactMap { $0 }.joined(separator: " ")
            let head = "\(event.eventId) \(event.operationType.rawValue) \(target)"
            let differences = event.differences
            guard let then = event.then else {
                lines.append("\(head): no recorded run; now \(Self.describe(event.now))")
                continue
            }
            guard !differences.isEmpty else {
                lines.append("\(head): same (\(Self.describe(event.now)))")
                continue
            }
            lines.append("\(head): DIFFERENT (\(differences.map(\.rawValue).joined(separator: ", ")))")
            lines.append("    then: \(Self.describe(then))")
            lines.append("    now:  \(Self.describe(event.now))")
            if differences.contains(.error) {
                lines.append("    error then: \(then.error ?? "none")")
                lines.append("    error now:  \(event.now.error ?? "none")")
            }
            if differences.contains(.messages) {
                for message in then.messages { lines.append("    sent then: \(message.extendedJSON(mode: .relaxed))") }
                for message in event.now.messages {
                    lines.append("    sent now:  \(message.extendedJSON(mode: .relaxed))")
                }
            }
            if differences.contains(.writes) {
                for write in then.writes ?? [] { lines.append("    wrote then: \(Self.describe(write))") }
                for write in event.now.writes ?? [] { lines.append("    wrote now:  \(Self.describe(write))") }
            }
            for line in event.now.logs { lines.append("    log now: \(line)") }
        }
        lines.append(summary)
        return lines
    }

    /// `update shop.books {"_id":1} {"updatedFields":…}`: a write's operation, target and what it wrote.
    private static func describe(_ write: BSONDocument) -> String {
        let ns = write["ns"]?.documentValue
        return [
            write["operationType"]?.stringValue,
            ns.map { "\($0["db"]?.stringValue ?? "").\($0["coll"]?.stringValue ?? "")" },
            write["documentKey"].map { $0.extendedJSON(mode: .relaxed) },
            (write["fullDocument"] ?? write["updateDescription"] ?? write["to"]).map {
                $0.extendedJSON(mode: .relaxed)
            },
        ].compactMap { $0 }.joined(separator: " ")
    }

    /// `success, 1 message, 2 writes`.
    private static func describe(_ run: Run) -> String {
        var parts = [run.outcome.rawValue]
        parts.append("\(run.messages.count) message\(run.messages.count == 1 ? "" : "s")")
        if let writes = run.writes { parts.append("\(writes.count) write\(writes.count == 1 ? "" : "s")") }
        return parts.joined(separator: ", ")
    }

    /// The report as one document (`--json`): `{trigger, function, events: [{eventId, operationType, ns?,
    /// documentKey?, same, differences, attemptsThen, then?, now}], summary: {events, same, different,
    /// unrecorded}, notes}`.
    package var document: BSONDocument {
        [
            "trigger": .string(trigger), "function": .string(function),
            "events": .array(events.map { .document($0.document) }),
            "summary": [
                "events": .int64(Int64(events.count)), "same": .int64(Int64(same.count)),
                "different": .int64(Int64(differences.count)), "unrecorded": .int64(Int64(unrecorded.count)),
            ],
            "notes": .array(notes.map { .string($0) }),
        ]
    }
}

extension ReplayReport.Comparison {
    var document: BSONDocument {
        var document: BSONDocument = ["eventId": .string(eventId), "operationType": .string(operationType.rawValue)]
        if let namespace {
            document.append("ns", ["db": .string(namespace.database), "coll": .string(namespace.collection)])
        }
        if let documentKey { document.append("documentKey", .document(documentKey)) }
        document.append("same", .bool(then != nil && differences.isEmpty))
        document.append("differences", .array(differences.map { .string($0.rawValue) }))
        document.append("attemptsThen", .int64(Int64(attemptsThen)))
        if let then { document.append("then", .document(then.document)) }
        document.append("now", .document(now.document))
        return document
    }
}

extension ReplayReport.Run {
    var document: BSONDocument {
        var document: BSONDocument = ["outcome": .string(outcome.rawValue)]
        if let error { document.append("error", .string(error)) }
        document.append("logs", .array(logs.map { .string($0) }))
        document.append("messages", .array(messages.map { .document($0) }))
        document.append("writes", writes.map { .array($0.map { .document($0) }) } ?? .null)
        return document
    }
}
