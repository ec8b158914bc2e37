import BSON
import DocumentStore

/// `collections.json` in an exported directory: each collection with its document count and secondary
/// indexes (`{key, name, unique?}`, as `listIndexes` shows them), one collection per line, so that a
/// checked-in export diffs well. Import reads indexes from it; a collection file it does not list is
/// imported without secondary indexes, so hand-written seed files need no manifest.
package struct DataManifest: Sendable, Equatable {
    package struct Entry: Sendable, Equatable {
        package var documents: Int
        package var indexes: [BSONDocument]

        package init(documents: Int, indexes: [BSONDocument]) {
            self.documents = documents
            self.indexes = indexes
        }
    }

    package var collections: [Namespace: Entry]

    package init(collections: [Namespace: Entry] = [:]) {
        self.collections = collections
    }

    /// Relaxed Extended JSON (index keys read `1`, not `{"$numberInt":"1"}`), collections sorted by name.
    package var text: String {
        let lines = collections.sorted { $0.key.description < $1.key.description }.map { namespace, entry in
            let value: BSONDocument = [
                "documents": .int64(Int64(entry.documents)), "indexes": .array(entry.indexes.map(BSON.document)),
            ]
            return BSON.string(namespace.description).extendedJSON(mode: .relaxed) + ": "
                + value.extendedJSON(mode: .relaxed)
        }
        return lines.isEmpty ? "{}\n" : "{\n" + lines.joined(separator: ",\n") + "\n}\n"
    }

    /// Reads a manifest; `file` is the path errors name.
    package static func read(_ bytes: [UInt8], file: String) throws(DataImportError) -> DataManifest {
        let document: BSONDocument
        do {
            document = try ExtendedJSON.parseDocument(bytes)
        } catch {
            throw DataImportError(file: file, line: error.line, column: error.column, message: error.message)
        }
        var manifest = DataManifest()
        for (name, value) in document {
            guard let dot = name.firstIndex(of: "."), dot != name.startIndex, name.index(after: dot) != name.endIndex
            else {
                throw DataImportError(file: file, message: "'\(name)' is not a <database>.<collection> name")
            }
            let namespace = Namespace(
                database: String(name[..<dot]), collection: String(name[name.index(after: dot)...]))
            guard let entry = value.documentValue else {
                throw DataImportError(file: file, message: "'\(name)': expected {\"documents\": N, \"indexes\": […]}")
            }
            var indexes: [BSONDocument] = []
            if let list = entry["indexes"] {
                guard let array = list.arrayValue, array.allSatisfy({ $0.documentValue != nil }) else {
                    throw DataImportError(file: file, message: "'\(name)': 'indexes' must be an array of documents")
                }
                indexes = array.compactMap(\.documentValue)
            }
            let count = entry["documents"]?.int64Value.map { Int(clamping: $0) } ?? 0
            manifest.collections[namespace] = Entry(documents: count, indexes: indexes)
        }
        return manifest
    }
}
