import BSON

/// A capped log's documents in the order pruning reads them, oldest first: by time, then `_id`, for logs whose
/// documents carry a date and an ObjectId `_id` (the outbox; the invocation log orders its pages by `Key`).
struct LogOrder {
    struct Key: Comparable {
        var time: BSONDate
        var id: ObjectId

        init(time: BSONDate, id: ObjectId) {
            self.time = time
            self.id = id
        }

        /// Nil for a document without a date in `timeField` or an ObjectId `_id`.
        init?(_ document: BSONDocument, timeField: String) {
            guard case .datetime(let time) = document[timeField], case .objectId(let id) = document["_id"] else {
                return nil
            }
            self.time = time
            self.id = id
        }

        /// As the store sorts dates and ObjectIds (`BSON.compare` of each is theirs).
        static func < (lhs: Key, rhs: Key) -> Bool {
            lhs.time != rhs.time ? lhs.time < rhs.time : lhs.id < rhs.id
        }

        static func == (lhs: Key, rhs: Key) -> Bool { lhs.time == rhs.time && lhs.id == rhs.id }
    }

    /// Every document of the log, oldest first; nil until a prune reads them.
    var keys: [Key]?

    /// Places a new document; new ones are usually the newest, so the search starts from the end.
    mutating func insert(_ key: Key) {
        guard var keys else { return }
        self.keys = nil
        var index = keys.endIndex
        while index > keys.startIndex, key < keys[index - 1] { index -= 1 }
        keys.insert(key, at: index)
        self.keys = keys
    }
}
