import BSON
import DocumentStore

extension TriggerReader {
    /// Compiles a database trigger's `match` or `project` as the trigger runtime will (a `$match` or `$project`
    /// stage on the change event), so that what the store refuses is reported at load time, in the file,
    /// instead of suspending the trigger at its first event.
    ///
    /// The error points at the deepest key whose pair alone is refused: the operator at fault (`$eqq`, an
    /// `$in` without a list, an invalid `$regex`) rather than the whole mapping.
    static func checkStage(
        _ stage: String, _ document: BSONDocument, node: YAMLNode, key: String, reader: inout ConfigurationReader
    ) {
        func compiles(_ specification: BSONDocument) -> StoreError? {
            do {
                _ = try Pipeline([[stage: .document(specification)]])
                return nil
            } catch {
                return error
            }
        }
        if stage == "$project", let id = document["_id"], id == .bool(false) || id.int64Value == 0,
            case .mapping(let pairs) = node.value, let idKey = pairs.first(where: { $0.key.scalar == "_id" })?.key
        {
            reader.error("'project' must keep _id: it holds the event's resume token", at: idKey)
            return
        }
        guard let failure = compiles(document) else { return }
        let culprit = culpritKey(in: node, document: document, wrap: { $0 }, compiles: { compiles($0) == nil })
        let message = culprit.map { compiles($0.alone) } ?? nil
        reader.error("'\(key)': \((message ?? failure).message)", at: culprit?.node ?? node)
    }

    /// The key node of the deepest pair the stage refuses on its own, with the specification holding only
    /// that pair (wrapped in its parents); nil when every pair passes alone (the pairs conflict together).
    private static func culpritKey(
        in node: YAMLNode, document: BSONDocument, wrap: (BSONDocument) -> BSONDocument,
        compiles: (BSONDocument) -> Bool
    ) -> (node: YAMLNode, alone: BSONDocument)? {
        guard case .mapping(let pairs) = node.value else { return nil }
        for pair in pairs {
            guard let key = pair.key.scalar, let value = document[key] else { continue }
            let alone = wrap([key: value])
            guard !compiles(alone) else { continue }
            if case .document(let inner) = value,
                let deeper = culpritKey(
                    in: pair.value, document: inner, wrap: { wrap([key: .document($0)]) }, compiles: compiles)
            {
                return deeper
            }
            return (pair.key, alone)
        }
        return nil
    }
}
