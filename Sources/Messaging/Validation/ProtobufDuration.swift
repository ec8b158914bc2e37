/// The JSON form of `google.protobuf.Duration`: seconds with up to nine fractional digits and an `s` suffix
/// (`"3.5s"`, `"86400s"`). FCM's `ttl` and the Android duration fields use it.
enum ProtobufDuration {
    /// The duration in seconds, or nil when the text is not a non-negative duration.
    static func seconds(_ text: String) -> Double? {
        guard text.hasSuffix("s") else { return nil }
        let number = text.dropLast()
        let parts = number.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = parts.first, !whole.isEmpty, whole.count <= 12, whole.allSatisfy(\.isASCIIDigit) else {
            return nil
        }
        if parts.count == 2 {
            let fraction = parts[1]
            guard (1...9).contains(fraction.count), fraction.allSatisfy(\.isASCIIDigit) else { return nil }
        }
        return Double(number)
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
