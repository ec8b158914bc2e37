/// A request's headers by lower-cased name, repeated headers joined with ", ". Kept as a list rather than a
/// dictionary: a request has a handful, and handlers read two or three, so a scan costs less than hashing every
/// name of every request into a table.
public struct RequestHeaders: Sendable, ExpressibleByDictionaryLiteral {
    private var fields: [Field]

    /// A struct, not a tuple: an array of tuples is destroyed through the runtime's generic tuple witness, element
    /// by element, which cost every request more than reading its headers.
    private struct Field {
        var name: String
        var value: String
    }

    /// Names are lower-cased here; a repeated name is joined with ", ".
    public init(dictionaryLiteral elements: (String, String)...) {
        fields = []
        for (name, value) in elements { add(name.lowercased(), value) }
    }

    init(minimumCapacity: Int) {
        fields = []
        fields.reserveCapacity(minimumCapacity)
    }

    /// The value of the header named `name`, which must be lower-case (as every name here is).
    public subscript(_ name: String) -> String? {
        fields.first { $0.name == name }?.value
    }

    /// `name` comes lower-cased already.
    mutating func add(_ name: String, _ value: String) {
        if let index = fields.firstIndex(where: { $0.name == name }) {
            fields[index].value += ", \(value)"
        } else {
            fields.append(Field(name: name, value: value))
        }
    }
}
