import BSON

/// A change event's `updateDescription`, computed from the pre- and post-image the way MongoDB reports it:
/// dotted keys for nested changes (`volumeInfo.title`), array element updates by index (`tokens.2`),
/// removed fields, and arrays that got shorter.
///
/// The diff, in the post-image's field order:
/// - a field only in the post-image, or whose value changed type or scalar value, is reported at its
///   path with its whole new value;
/// - a field only in the pre-image is in `removedFields`;
/// - documents present in both are compared field by field (a nested document whose fields changed
///   order is reported whole, since an update description cannot express a reordering; a reordering of
///   top-level fields is not reported, as only a replacement can cause one);
/// - arrays present in both are compared by index: changed elements up to the shorter length are
///   reported per index (`tokens.1`, recursing into documents and arrays), appended elements per index,
///   and a shorter array in `truncatedArrays`. When more than half of the kept elements changed (and more
///   than one), the whole array is reported instead, as removing the first element would otherwise
///   report every element; so is an array that grew by more elements than it kept (and by more than one):
///   `{$set: {"arr.1000000": 1}}` on a short array would otherwise report a million padding nulls as as many
///   dotted fields, each with its key, in memory and in the change event.
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

    public init(
        updatedFields: BSONDocument = [:], removedFields: [String] = [], truncatedArrays: [TruncatedArray] = []
    ) {
        self.updatedFields = updatedFields
        self.removedFields = removedFields
        self.truncatedArrays = truncatedArrays
    }

    public init(from before: BSONDocument, to after: BSONDocument) {
        self.init()
        diffFields(before, after, prefix: "", depth: 0)
    }

    /// The description as it appears in a change event.
    public var document: BSONDocument {
        [
            "updatedFields": .document(updatedFields),
            "removedFields": .array(removedFields.map { .string($0) }),
            "truncatedArrays": .array(
                truncatedArrays.map { ["field": .string($0.field), "newSize": .int32($0.newSize)] }),
        ]
    }

    /// Past this depth values are reported whole, which bounds the recursion on any input.
    private static let maximumDepth = 100

    private mutating func diffFields(_ before: BSONDocument, _ after: BSONDocument, prefix: String, depth: Int) {
        for (key, value) in after {
            let path = prefix + key
            if let old = before[key] {
                diffValue(old, value, path: path, depth: depth)
            } else {
                updatedFields[path] = value
            }
        }
        for key in before.keys where !after.contains(key) {
            removedFields.append(prefix + key)
        }
    }

    private mutating func diffValue(_ old: BSON, _ new: BSON, path: String, depth: Int) {
        guard old != new else { return }
        guard depth < Self.maximumDepth else { updatedFields[path] = new; return }
        switch (old, new) {
        case (.document(let before), .document(let after)) where Self.keepsOrder(before, after):
            diffFields(before, after, prefix: path + ".", depth: depth + 1)
        case (.array(let before), .array(let after)):
            diffArray(before, after, path: path, depth: depth)
        default:
            updatedFields[path] = new
        }
    }

    private mutating func diffArray(_ before: [BSON], _ after: [BSON], path: String, depth: Int) {
        let kept = min(before.count, after.count)
        let appended = after.count - kept
        if appended > 1, appended > kept {
            updatedFields[path] = .array(after)
            return
        }
        let changed = (0..<kept).filter { before[$0] != after[$0] }
        if changed.count > 1, changed.count * 2 > kept {
            updatedFields[path] = .array(after)
            return
        }
        for index in changed {
            diffValue(before[index], after[index], path: "\(path).\(index)", depth: depth + 1)
        }
        for index in kept..<after.count {
            updatedFields["\(path).\(index)"] = after[index]
        }
        if after.count < before.count {
            truncatedArrays.append(TruncatedArray(field: path, newSize: Int32(clamping: after.count)))
        }
    }

    /// True when the fields both documents have appear in the same relative order.
    private static func keepsOrder(_ before: BSONDocument, _ after: BSONDocument) -> Bool {
        let common = after.keys.filter { before.contains($0) }
        return before.keys.filter { after.contains($0) } == common
    }
}
