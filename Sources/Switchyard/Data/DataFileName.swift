import DocumentStore
import Foundation

/// How an exported directory names its files: `<db>.<collection>.json` per collection (one canonical
/// Extended JSON document per line) and `collections.json`, the manifest with each collection's indexes.
/// A database name never holds a dot, so the first dot ends it; `%` and `/` in a collection name are
/// written as `%25` and `%2F`, since a file name cannot hold a `/`.
package enum DataFileName {
    /// The manifest: it has no `<db>.<collection>` part, so it never names a collection.
    package static let manifest = "collections.json"
    static let suffix = ".json"

    package static func file(for namespace: Namespace) -> String {
        let collection = namespace.collection.replacingOccurrences(of: "%", with: "%25")
            .replacingOccurrences(of: "/", with: "%2F")
        return "\(namespace.database).\(collection)\(suffix)"
    }

    /// The collection a file holds; nil for a file that is not `<db>.<collection>.json` (the manifest, a README).
    package static func namespace(ofFile name: String) -> Namespace? {
        guard name.hasSuffix(suffix), name != manifest else { return nil }
        let stem = name.dropLast(suffix.count)
        guard let dot = stem.firstIndex(of: "."), dot != stem.startIndex else { return nil }
        let collection = stem[stem.index(after: dot)...]
        guard !collection.isEmpty else { return nil }
        let decoded = String(collection).replacingOccurrences(of: "%2F", with: "/")
            .replacingOccurrences(of: "%25", with: "%")
        return Namespace(database: String(stem[..<dot]), collection: decoded)
    }
}
