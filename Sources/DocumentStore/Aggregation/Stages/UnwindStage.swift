import BSON

/// `$unwind`: one output document per element of an array field. A non-array value passes as if it were a
/// one-element array; null, missing and empty arrays drop the document unless `preserveNullAndEmptyArrays`.
struct UnwindStage: AggregationStage {
    let path: [String]
    let indexPath: [String]?
    let preserveNullAndEmptyArrays: Bool

    init(_ spec: BSON) throws(StoreError) {
        var pathText: String?
        var indexPath: [String]?
        var preserve = false
        switch spec {
        case .string(let text):
            pathText = text
        case .document(let document):
            for (key, value) in document {
                switch key {
                case "path":
                    guard case .string(let text) = value else {
                        throw .location(28808, "expected a string as the path for $unwind stage, got \(value.typeName)")
                    }
                    pathText = text
                case "includeArrayIndex":
                    guard case .string(let text) = value else {
                        throw .location(
                            28810, "expected a non-empty string for the includeArrayIndex option to $unwind stage")
                    }
                    guard !text.hasPrefix("$") else {
                        throw .location(
                            28822,
                            "includeArrayIndex option to $unwind stage should not be prefixed with a '$': \(text)")
                    }
                    indexPath = try aggregationPath(text, stage: "$unwind")
                case "preserveNullAndEmptyArrays":
                    guard case .bool(let b) = value else {
                        throw .location(
                            28809, "expected a boolean for the preserveNullAndEmptyArrays option to $unwind stage")
                    }
                    preserve = b
                default:
                    throw .location(28811, "unrecognized option to $unwind stage: \(key)")
                }
            }
        default:
            throw .location(
                15981, "expected either a string or an object as specification for $unwind stage, got \(spec.typeName)")
        }
        guard let pathText else { throw .location(28812, "no path specified to $unwind stage") }
        guard pathText.hasPrefix("$") else {
            throw .location(28818, "path option to $unwind stage should be prefixed with a '$': \(pathText)")
        }
        path = try aggregationPath(String(pathText.dropFirst()), stage: "$unwind")
        self.indexPath = indexPath
        preserveNullAndEmptyArrays = preserve
    }

    func run(_ input: [BSONDocument], context: StageContext) throws(StoreError) -> [BSONDocument] {
        var output: [BSONDocument] = []
        for document in input {
            switch document.aggregationValue(at: path[...]) {
            case .array(let elements)? where !elements.isEmpty:
                for (i, element) in elements.enumerated() {
                    var copy = document
                    copy.setAggregationValue(element, at: path[...])
                    if let indexPath { copy.setAggregationValue(.int64(Int64(i)), at: indexPath[...]) }
                    output.append(copy)
                }
            case .array?:
                guard preserveNullAndEmptyArrays else { continue }
                var copy = document
                copy.removeValue(at: path[...])
                if let indexPath { copy.setAggregationValue(.null, at: indexPath[...]) }
                output.append(copy)
            case nil, .null?, .undefined?:
                guard preserveNullAndEmptyArrays else { continue }
                var copy = document
                if let indexPath { copy.setAggregationValue(.null, at: indexPath[...]) }
                output.append(copy)
            case .some:
                var copy = document
                if let indexPath { copy.setAggregationValue(.null, at: indexPath[...]) }
                output.append(copy)
            }
        }
        return output
    }
}
