import BSON
import DocumentStore
import Foundation
import Synchronization

/// Loads an exported directory (see `DataFileName`) into a store: each `<db>.<collection>.json` file
/// replaces that collection's documents, and its indexes become those `collections.json` lists. Collections
/// without a file are left alone.
///
/// Every file is read and checked before anything is written, then every collection is replaced in one
/// transaction: an import lands whole or not at all, so a syntax error anywhere, or a document the store
/// refuses (a duplicate `_id`, a unique index broken), changes nothing.
///
/// Without `logChanges` (the default) the import is not in the change log: no trigger fires and no change
/// stream sees it, now or when triggers later catch up from their resume tokens. With it, the import is
/// logged as ordinary writes (a `delete` for each document replaced, an `insert` for each new one), committed
/// together, so running triggers fire, and stopped ones do when they catch up.
package enum DataImport {
    package struct Options: Sendable {
        /// Log the import's writes as change events (`switchyard data import --fire-triggers`).
        package var logChanges: Bool
        /// Also import files of `admin`, `local` and `config`, where Switchyard keeps its own bookkeeping
        /// (trigger state, invocation log, outbox); skipped by default.
        package var includeInternalDatabases: Bool

        package init(logChanges: Bool = false, includeInternalDatabases: Bool = false) {
            self.logChanges = logChanges
            self.includeInternalDatabases = includeInternalDatabases
        }
    }

    /// One collection imported.
    package struct Collection: Sendable, Equatable {
        package var namespace: Namespace
        package var file: String
        package var documents: Int
        package var indexes: Int
    }

    package struct Summary: Sendable, Equatable {
        package var collections: [Collection] = []
        /// Files left out, each with the reason (`local.invocations.json: internal database`).
        package var skipped: [String] = []

        package var documents: Int { collections.reduce(0) { $0 + $1.documents } }
    }

    /// Imports every collection file in `directory` into `store`; see the type's documentation.
    /// - Parameter progress: hears each chunk read and each collection written (from any thread).
    @discardableResult
    package static func `import`(
        from directory: String, into store: DocumentStore, options: Options = Options(),
        progress: (@Sendable (DataImportProgress) -> Void)? = nil
    ) async throws(DataImportError) -> Summary {
        let plan = try DataImportPlan(directory: directory, options: options)
        var summary = Summary(skipped: plan.skipped)
        let files = try plan.read(progress: progress)
        let contents = files.map { file in
            CollectionContents(
                namespace: file.namespace, documents: file.documents,
                indexes: plan.manifest.collections[file.namespace]?.indexes ?? [])
        }
        do {
            try await store.replaceContents(contents, changeLogged: options.logChanges)
        } catch {
            let file = files[error.collection]
            if let position = error.document { throw file.error(atDocument: position, error.error.message) }
            throw DataImportError(file: file.path, message: "cannot import \(file.namespace): \(error.error)")
        }
        let totalDocuments = files.reduce(0) { $0 + $1.documents.count }
        var written = 0
        for (file, collection) in zip(files, contents) {
            written += file.documents.count
            summary.collections.append(
                Collection(
                    namespace: file.namespace, file: file.path, documents: file.documents.count,
                    indexes: collection.indexes.count))
            progress?(
                DataImportProgress(
                    phase: .writing, file: file.path, bytesRead: plan.totalBytes, totalBytes: plan.totalBytes,
                    documentsWritten: written, totalDocuments: totalDocuments))
        }
        return summary
    }
}

/// What an import will read: the collection files, the manifest, and what is left out.
struct DataImportPlan {
    var directory: String
    var files: [(namespace: Namespace, path: String, size: Int)] = []
    var manifest = DataManifest()
    var skipped: [String] = []
    var totalBytes: Int { files.reduce(0) { $0 + $1.size } }

    init(directory given: String, options: DataImport.Options) throws(DataImportError) {
        directory = given.count > 1 && given.hasSuffix("/") ? String(given.dropLast()) : given
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
        } catch {
            throw DataImportError(file: directory, message: "no such directory")
        }
        let manifestPath = path(DataFileName.manifest)
        if names.contains(DataFileName.manifest) {
            let data: Data
            do {
                data = try LocalFile.contents(manifestPath)
            } catch {
                throw DataImportError(file: manifestPath, message: "cannot be read: \(error.reason)")
            }
            manifest = try DataManifest.read(Array(data), file: manifestPath)
        }
        for name in names where name.hasSuffix(".json") && name != DataFileName.manifest {
            let path = path(name)
            guard let namespace = DataFileName.namespace(ofFile: name) else {
                skipped.append("\(path): not named <database>.<collection>.json")
                continue
            }
            if !options.includeInternalDatabases && !namespace.isChangeLogged {
                skipped.append("\(path): \(namespace.database) is an internal database (include it to import it)")
                continue
            }
            do {
                try namespace.validate()
            } catch {
                throw DataImportError(file: path, message: "\(namespace) cannot be a collection: \(error.message)")
            }
            let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
            files.append((namespace, path, size))
        }
        let imported = Set(files.map(\.namespace))
        for (namespace, entry) in manifest.collections.sorted(by: { $0.key.description < $1.key.description }) {
            guard options.includeInternalDatabases || namespace.isChangeLogged else { continue }
            guard imported.contains(namespace) else {
                throw DataImportError(
                    file: manifestPath,
                    message: "lists \(namespace), but there is no \(DataFileName.file(for: namespace)) beside it")
            }
            for spec in entry.indexes {
                do {
                    try DocumentCollection.validateIndexSpecification(spec)
                } catch {
                    throw DataImportError(
                        file: manifestPath,
                        message:
                            "\(namespace): index \(BSON.document(spec).extendedJSON(mode: .relaxed)): \(error.message)")
                }
            }
        }
    }

    private func path(_ name: String) -> String { directory == "." ? name : "\(directory)/\(name)" }

    /// Reads and parses every file, reporting bytes as chunks finish.
    func read(progress: (@Sendable (DataImportProgress) -> Void)?) throws(DataImportError) -> [CollectionFile] {
        let total = totalBytes
        let done = Atomic<Int>(0)
        var parsed: [CollectionFile] = []
        for (namespace, path, size) in files {
            let data: Data
            do {
                data = try LocalFile.contents(path)
            } catch {
                throw DataImportError(file: path, message: "cannot be read: \(error.reason)")
            }
            let before = done.load(ordering: .relaxed)
            parsed.append(
                try CollectionFile.parse(Array(data), path: path, namespace: namespace) { bytes in
                    let now = done.add(bytes, ordering: .relaxed).newValue
                    progress?(
                        DataImportProgress(
                            phase: .reading, file: path, bytesRead: min(now, before + size), totalBytes: total,
                            documentsWritten: 0, totalDocuments: 0))
                })
            done.store(before + size, ordering: .relaxed)
            progress?(
                DataImportProgress(
                    phase: .reading, file: path, bytesRead: before + size, totalBytes: total, documentsWritten: 0,
                    totalDocuments: 0))
        }
        return parsed
    }
}
