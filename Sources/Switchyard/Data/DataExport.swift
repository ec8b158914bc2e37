import BSON
import DocumentStore
import Foundation

/// Writes a store's collections to a directory (see `DataFileName`): `<db>.<collection>.json` with one
/// canonical Extended JSON document per line, sorted by `_id`, so every BSON type survives and a
/// checked-in export diffs well; and `collections.json` with each collection's indexes. Each collection's documents are
/// read as one consistent snapshot. Files the previous export in the directory wrote for collections that
/// no longer exist are removed (the manifest says which), so the directory holds exactly this export;
/// other files are left alone. `DataImport` reads the directory back.
package enum DataExport {
    package struct Options: Sendable {
        /// Also export `admin`, `local` and `config` (Switchyard's bookkeeping); skipped by default.
        package var includeInternalDatabases: Bool

        package init(includeInternalDatabases: Bool = false) {
            self.includeInternalDatabases = includeInternalDatabases
        }
    }

    /// One collection exported.
    package struct Collection: Sendable, Equatable {
        package var namespace: Namespace
        package var file: String
        package var documents: Int
        package var indexes: Int
    }

    /// Why an export failed: the file it could not write, or the store's error.
    package struct Failure: Error, Sendable, CustomStringConvertible {
        package var description: String
    }

    @discardableResult
    package static func export(store: DocumentStore, to directory: String, options: Options = Options())
        async throws(Failure) -> [Collection]
    {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw Failure(description: "\(directory): cannot be created (\(error.localizedDescription))")
        }
        let base = directory.count > 1 && directory.hasSuffix("/") ? String(directory.dropLast()) : directory
        let manifestPath = "\(base)/\(DataFileName.manifest)"
        let previous = FileManager.default.contents(atPath: manifestPath).flatMap {
            try? DataManifest.read(Array($0), file: manifestPath)
        }
        var manifest = DataManifest()
        var exported: [Collection] = []
        do {
            for database in try await store.listDatabaseNames().sorted() {
                let namespaceProbe = Namespace(database: database, collection: "-")
                guard options.includeInternalDatabases || namespaceProbe.isChangeLogged else { continue }
                for name in try await store.database(database).listCollectionNames().sorted() {
                    let collection = store.database(database).collection(name)
                    let snapshot = try await snapshot(collection)
                    let file = "\(base)/\(DataFileName.file(for: collection.namespace))"
                    var bytes: [UInt8] = []
                    for document in snapshot.documents {
                        document.appendExtendedJSON(to: &bytes, mode: .canonical)
                        bytes.append(UInt8(ascii: "\n"))
                    }
                    try write(bytes, to: file)
                    manifest.collections[collection.namespace] = DataManifest.Entry(
                        documents: snapshot.documents.count, indexes: snapshot.indexes)
                    exported.append(
                        Collection(
                            namespace: collection.namespace, file: file, documents: snapshot.documents.count,
                            indexes: snapshot.indexes.count))
                }
            }
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure(description: "cannot read the store: \(error)")
        }
        try write(Array(manifest.text.utf8), to: manifestPath)
        for namespace in (previous?.collections.keys).map(Array.init) ?? [] where manifest.collections[namespace] == nil
        {
            try? FileManager.default.removeItem(atPath: "\(base)/\(DataFileName.file(for: namespace))")
        }
        return exported
    }

    /// The documents (by `_id`, one snapshot) and the secondary indexes of a collection.
    private static func snapshot(_ collection: DocumentCollection) async throws -> (
        documents: [BSONDocument], indexes: [BSONDocument]
    ) {
        let documents = try await collection.find([:], options: FindOptions(sort: ["_id": 1])).toArray()
        let indexes = try await collection.listIndexes().compactMap { spec -> BSONDocument? in
            guard spec["name"]?.stringValue != "_id_" else { return nil }
            var index = spec
            index.removeValue(forKey: "v")
            return index
        }
        return (documents, indexes)
    }

    private static func write(_ bytes: [UInt8], to path: String) throws(Failure) {
        do {
            try Data(bytes).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw Failure(description: "\(path): cannot be written (\(error.localizedDescription))")
        }
    }
}
