import BSON
import DocumentStore

extension ChangeEvent {
    /// The fields of a change a run made that say what it wrote: `{operationType, ns?, documentKey?, fullDocument?,
    /// updateDescription?, to?}` (the inserted or replacing document, the update's description, a rename's target).
    var runWrite: BSONDocument {
        var write: BSONDocument = ["operationType": .string(operationType.rawValue)]
        for key in ["ns", "documentKey", "fullDocument", "updateDescription", "to"] {
            if let value = raw[key], value != .null { write.append(key, value) }
        }
        return write
    }
}
