import Switchyard

extension BSON {
    /// A document `_id` as notification text (collapse ids, thread ids, data values): an ObjectId as its hex,
    /// a string as itself, anything else as relaxed Extended JSON.
    var identifierText: String {
        switch self {
        case .objectId(let id): id.hex
        case .string(let string): string
        default: extendedJSON(mode: .relaxed)
        }
    }
}
