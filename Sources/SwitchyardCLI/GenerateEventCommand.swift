import BSON
import DocumentStore
import Foundation
import Switchyard

/// `switchyard generate-event KIND`: prints the change event a write produces, made by a real store.
struct GenerateEventCommand: Command {
    static let name = "generate-event"
    static let summary = "Print the change event an insert, update, replace or delete produces (for fire --event)"
    static let usage = """
        USAGE: switchyard generate-event insert  --ns DB.COLL --document DOC.json
               switchyard generate-event update  --ns DB.COLL --before DOC.json --update '{"$set": …}'
               switchyard generate-event update  --ns DB.COLL --before DOC.json --document AFTER.json
               switchyard generate-event replace --ns DB.COLL --before DOC.json --document NEW.json
               switchyard generate-event delete  --ns DB.COLL --document DOC.json

        Performs the write on a scratch in-memory store (pre- and post-images enabled) and prints the
        change event its change stream emits, exactly as MongoDB shapes it: resume token, clusterTime,
        wallTime, ns, documentKey, updateDescription with dotted paths, fullDocument and
        fullDocumentBeforeChange. Documents are Extended JSON files ('-' reads standard input).

        OPTIONS:
          --ns DB.COLL          The namespace the event happens in
          --document FILE       insert: the document; replace: the replacement; update: the document after
                                (the update is the field-by-field difference) or, without --before, the
                                document to update; delete: the document deleted
          --before FILE         The document as it is before an update, replace or delete
          --update JSON         Update operators, as Extended JSON text
          --full-document       Update events carry the document after the change (fullDocument)
          --pre-image           Update, replace and delete events carry the document before it
                                (fullDocumentBeforeChange)
          --relaxed             Print relaxed Extended JSON (the default)
          --canonical           Print canonical Extended JSON, keeping every BSON type
          -h, --help            Show this help
        """

    static let kinds = ["insert", "update", "replace", "delete"]

    var kind: String
    var namespace: Namespace
    var document: String?
    var before: String?
    var update: String?
    var fullDocument: Bool
    var preImage: Bool
    var mode: ExtendedJSON.Mode

    init(arguments: [String]) throws(UsageError) {
        let parsed = try Arguments(
            arguments, options: ["--ns", "--document", "--before", "--update"],
            flags: ["--full-document", "--pre-image", "--relaxed", "--canonical"], usage: Self.usage)
        guard let kind = parsed.positionals.first else {
            throw UsageError("missing the kind of event (insert, update, replace or delete)", usage: Self.usage)
        }
        guard Self.kinds.contains(kind) else {
            let hint = ClosestMatch.suggestion(for: kind, among: Self.kinds).map { " (did you mean '\($0)'?)" } ?? ""
            throw UsageError(
                "unknown kind of event '\(kind)'\(hint) (expected insert, update, replace or delete)", usage: Self.usage
            )
        }
        guard parsed.positionals.count == 1 else {
            throw UsageError("unexpected argument '\(parsed.positionals[1])'", usage: Self.usage)
        }
        guard let ns = parsed.value("--ns") else { throw UsageError("missing --ns DB.COLL", usage: Self.usage) }
        let parts = ns.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
            throw UsageError("--ns '\(ns)' is not DB.COLL", usage: Self.usage)
        }
        guard !(parsed.has("--relaxed") && parsed.has("--canonical")) else {
            throw UsageError("--relaxed and --canonical exclude each other", usage: Self.usage)
        }
        self.kind = kind
        namespace = Namespace(database: String(parts[0]), collection: String(parts[1]))
        document = parsed.value("--document")
        before = parsed.value("--before")
        update = parsed.value("--update")
        fullDocument = parsed.has("--full-document")
        preImage = parsed.has("--pre-image")
        mode = parsed.has("--canonical") ? .canonical : .relaxed
        // Check the combination now, so a wrong one is a usage error before any file is read.
        guard Self.accepts(kind, document: document != nil, before: before != nil, update: update != nil) else {
            throw UsageError(Self.combinationHint[kind] ?? "", usage: Self.usage)
        }
    }

    /// Which documents each kind of event takes; checked before any file is read.
    static func accepts(_ kind: String, document: Bool, before: Bool, update: Bool) -> Bool {
        switch kind {
        case "insert": document && !before && !update
        case "update": [document, before, update].filter { $0 }.count == 2
        case "replace": document && before && !update
        case "delete": document != before && !update
        default: false
        }
    }

    static let combinationHint = [
        "insert": "insert takes --document (the document inserted) and nothing else",
        "update":
            "update takes --before and --update, --document and --update (the document before), or --before and --document (before and after)",
        "replace": "replace takes --before (the document replaced) and --document (the replacement)",
        "delete": "delete takes --document (or --before): the document deleted",
    ]

    func run() async -> Int32 {
        let change: SyntheticEvent.Change
        do throws(BadInput) {
            change = try readChange()
        } catch {
            Output.error(error.message)
            return 2
        }
        let event: ChangeEvent
        do {
            event = try await SyntheticEvent(
                namespace: namespace, change: change, fullDocument: fullDocument, fullDocumentBeforeChange: preImage
            ).generate()
        } catch {
            Output.error("switchyard generate-event: \(error.description)")
            return 2
        }
        Output.print(event.raw.extendedJSON(mode: mode))
        return 0
    }

    struct BadInput: Error {
        var message: String
    }

    private func readChange() throws(BadInput) -> SyntheticEvent.Change {
        let document = try self.document.map { path throws(BadInput) in try Self.readDocument(path) }
        let before = try self.before.map { path throws(BadInput) in try Self.readDocument(path) }
        let update = try self.update.map { text throws(BadInput) in try Self.parse(Array(text.utf8), source: "--update")
        }
        switch (kind, document, before, update) {
        case ("insert", let document?, _, _):
            return .insert(document)
        case ("update", _, let before?, let update?), ("update", let before?, nil, let update?):
            return .update(before: before, update: update)
        case ("update", let after?, let before?, nil):
            guard let update = SyntheticEvent.update(from: before, to: after) else {
                throw BadInput(
                    message:
                        "switchyard generate-event: --document equals --before; an unchanged document emits no event")
            }
            return .update(before: before, update: update)
        case ("replace", let replacement?, let before?, _):
            return .replace(before: before, replacement: replacement)
        case ("delete", let document?, _, _), ("delete", nil, let document?, _):
            return .delete(document)
        default:
            throw BadInput(message: Self.combinationHint[kind] ?? "")
        }
    }

    private static func readDocument(_ path: String) throws(BadInput) -> BSONDocument {
        let data: Data
        if path == "-" {
            guard let read = try? FileHandle.standardInput.readToEnd() ?? Data() else {
                throw BadInput(message: "switchyard generate-event: cannot read standard input")
            }
            data = read
        } else {
            do {
                data = try LocalFile.contents(path)
            } catch {
                throw BadInput(message: "switchyard generate-event: \(error)")
            }
        }
        return try parse(data, source: path == "-" ? "<stdin>" : path)
    }

    private static func parse(_ bytes: some Collection<UInt8>, source: String) throws(BadInput) -> BSONDocument {
        do {
            return try ExtendedJSON.parseDocument(bytes)
        } catch {
            throw BadInput(message: "\(source):\(error.line):\(error.column): \(error.message)")
        }
    }
}
