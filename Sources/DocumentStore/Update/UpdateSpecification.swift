import BSON
import Foundation

/// A compiled update: operators (`$set`, `$push`, …) or a replacement document.
///
/// Compiling checks everything that does not depend on a document, with MongoDB's codes and messages:
/// unknown operators, bad arguments, conflicting paths (`Updating the path 'a.b' would create a conflict
/// at 'a'`), array filters. Fields are applied in MongoDB 5.0+ order (string names lexicographically,
/// array indexes numerically), so new fields are appended in that order. As in MongoDB 5.0+, an operator
/// with no fields (`{$set: {}}`) is accepted and does nothing.
package struct UpdateSpecification: Sendable {
    private enum Form: Sendable {
        case replacement(BSONDocument)
        case operators(Operators)
    }

    private struct Operators: Sendable {
        var root = UpdateObjectNode()
        var renames: [(source: UpdatePath, target: UpdatePath)] = []
        /// Paths written through `_id`, for the immutable-field error.
        var idPaths: [UpdatePath] = []
        var arrayFilters = ArrayFilters()
    }

    private let form: Form

    package init(_ update: BSONDocument, arrayFilters: [BSONDocument] = []) throws(StoreError) {
        guard let first = update.keys.first, first.hasPrefix("$") else {
            guard arrayFilters.isEmpty else {
                throw .failedToParse("arrayFilters may not be specified for replacement-style updates")
            }
            try Self.validateReplacement(update)
            form = .replacement(update)
            return
        }
        var operators = Operators()
        operators.arrayFilters = try ArrayFilters(arrayFilters)
        var root = UpdateNode.object(UpdateObjectNode())
        for (name, argument) in update {
            guard let op = UpdateOperator(rawValue: name) else {
                throw .failedToParse(
                    "Unknown modifier: \(name). Expected a valid update modifier or pipeline-style update specified as an array"
                )
            }
            guard case .document(let fields) = argument else {
                throw .failedToParse(
                    "Modifiers operate on fields but we found type \(argument.typeName) instead. For example: {$mod: {<field>: ...}} not {\(name): \(argument.messageText)}"
                )
            }
            for (field, value) in fields {
                let path = try UpdatePath(field)
                var leaves: [UpdateLeaf]
                if op == .rename {
                    let target = try Self.renameTarget(from: path, value)
                    operators.renames.append((path, target))
                    leaves = [
                        UpdateLeaf(path: target, modifier: .renameTarget(source: path)),
                        UpdateLeaf(path: path, modifier: .renameSource),
                    ]
                } else {
                    leaves = [UpdateLeaf(path: path, modifier: try UpdateModifier(op, field: field, argument: value))]
                }
                for leaf in leaves {
                    try root.insert(leaf, from: 0)
                    if leaf.path.components.first == .field("_id") { operators.idPaths.append(leaf.path) }
                }
            }
        }
        let used = root.filterIdentifiers
        for identifier in used where !operators.arrayFilters.identifiers.contains(identifier) {
            let path = Self.firstPath(using: identifier, in: update) ?? "$[\(identifier)]"
            throw .badValue("No array filter found for identifier '\(identifier)' in path '\(path)'")
        }
        for identifier in operators.arrayFilters.identifiers.sorted() where !used.contains(identifier) {
            throw .failedToParse(
                "The array filter for identifier '\(identifier)' was not used in the update \(BSON.document(update).messageText)"
            )
        }
        if case .object(let node) = root { operators.root = node }
        form = .operators(operators)
    }

    /// True when the update is a replacement document rather than operators.
    package var isReplacement: Bool {
        if case .replacement = form { return true }
        return false
    }

    /// Applies the update to `document`. `match` carries the array position for positional `$`;
    /// `isInsert` is true when an upsert inserts (so `$setOnInsert` applies). `now` is the time
    /// `$currentDate` writes; a timestamp is its seconds with increment 1.
    ///
    /// Fails without a partial result: the input is a value, and nothing is returned on error.
    package func apply(
        to document: BSONDocument, match: QueryMatch? = nil, isInsert: Bool = false, now: BSONDate? = nil
    ) throws(StoreError) -> BSONDocument {
        switch form {
        case .replacement(let replacement):
            return try Self.replace(document, with: replacement)
        case .operators(let operators):
            let now = now ?? BSONDate(millisecondsSinceEpoch: Int64((Date().timeIntervalSince1970 * 1000).rounded()))
            var application = UpdateApplication(
                match: match, isInsert: isInsert, now: now,
                timestamp: BSONTimestamp(
                    time: UInt32(clamping: now.millisecondsSinceEpoch / 1000), increment: 1),
                arrayFilters: operators.arrayFilters, documentIDText: document.idMessageText,
                sizeBudget: DocumentSizeBudget(documentSize: document.encodedSize))
            for (source, target) in operators.renames {
                guard let value = try Self.renameSourceValue(source, in: document) else { continue }
                try Self.checkRenameTarget(target, in: document)
                application.renamedValues[source.description] = value
            }
            var result = document
            try application.applyRoot(operators.root, to: &result)
            if let originalID = document["_id"], result["_id"] != originalID, let path = operators.idPaths.first {
                throw .immutableField(
                    "Performing an update on the path '\(path)' would modify the immutable field '_id'")
            }
            return result
        }
    }

    /// Checks a replacement document (or a document to insert): no `$`-prefixed top-level field. Dots in
    /// field names are allowed, as in MongoDB 5.0+.
    package static func validateReplacement(_ document: BSONDocument) throws(StoreError) {
        for key in document.keys where key.hasPrefix("$") {
            throw StoreError(
                code: .dollarPrefixedFieldName,
                message: "The dollar ($) prefixed field '\(key)' in '\(key)' is not valid for storage.")
        }
    }

    /// The replacement, keeping the document's `_id` (first, when the replacement has none).
    private static func replace(_ document: BSONDocument, with replacement: BSONDocument) throws(StoreError)
        -> BSONDocument
    {
        guard let id = document["_id"] else { return replacement }
        if let newID = replacement["_id"] {
            guard newID == id else {
                throw .immutableField(
                    "After applying the update, the (immutable) field '_id' was found to have been altered to _id: \(newID.messageText)"
                )
            }
            return replacement
        }
        var result: BSONDocument = ["_id": id]
        for (key, value) in replacement { result.append(key, value) }
        return result
    }

    private static func renameTarget(from source: UpdatePath, _ value: BSON) throws(StoreError) -> UpdatePath {
        guard case .string(let to) = value else {
            throw .badValue("The 'to' field for $rename must be a string: \(source): \(value.messageText)")
        }
        let target = try UpdatePath(to)
        guard !source.isDynamic else {
            throw .badValue("The source field for $rename may not be dynamic: \(source)")
        }
        guard !target.isDynamic else {
            throw .badValue("The destination field for $rename may not be dynamic: \(target)")
        }
        guard source.description != target.description else {
            throw .badValue("The source and target field for $rename must differ: \(source): \"\(target)\"")
        }
        guard !source.isPrefix(of: target), !target.isPrefix(of: source) else {
            throw .badValue(
                "The source and target field for $rename must not be on the same path: \(source): \"\(target)\"")
        }
        return target
    }

    /// The value `$rename` moves, or nil when the source is missing. A source inside an array is an error.
    private static func renameSourceValue(_ source: UpdatePath, in document: BSONDocument) throws(StoreError)
        -> BSON?
    {
        var current = BSON.document(document)
        var previous = ""
        for component in source.components {
            switch current {
            case .document(let fields):
                guard let next = fields[component.text] else { return nil }
                current = next
                previous = component.text
            case .array:
                throw .badValue(
                    "The source field cannot be an array element, '\(source)' in doc with \(document.idMessageText) has an array field called '\(previous)'"
                )
            default:
                return nil
            }
        }
        return current
    }

    /// `$rename` cannot write into an array.
    private static func checkRenameTarget(_ target: UpdatePath, in document: BSONDocument) throws(StoreError) {
        var current = BSON.document(document)
        for component in target.components.dropLast() {
            guard case .document(let fields) = current, let next = fields[component.text] else { return }
            if case .array = next {
                throw .badValue(
                    "The destination field cannot be an array element, '\(target)' in doc with \(document.idMessageText) has an array field called '\(component.text)'"
                )
            }
            current = next
        }
    }

    /// The first path in `update` that uses `$[identifier]`, for the error message.
    private static func firstPath(using identifier: String, in update: BSONDocument) -> String? {
        for case (_, .document(let fields)) in update {
            for key in fields.keys where key.split(separator: ".").contains("$[\(identifier)]"[...]) {
                return key
            }
        }
        return nil
    }
}
