/// The values of a route's `{name}` segments.
package struct RouteParameters: Sendable {
    /// In pattern order; a route has few, so a search beats hashing.
    var values: [(name: String, value: String)] = []

    package subscript(_ name: String) -> String? { values.first { $0.name == name }?.value }
}
