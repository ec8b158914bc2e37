/// Whether a `Host` header or an origin's authority names this machine: `localhost`, an address in 127.0.0.0/8
/// written as four plain decimal numbers, or `[::1]`, each with an optional port of digits and nothing else. Strict
/// on purpose: a lenient match lets a name that only starts like one of these (`[::1].evil.example`,
/// `127.0.0.1:80@evil.example`) pass for this machine.
enum LoopbackHost {
    static func names(_ authority: Substring) -> Bool {
        let (host, port) = split(authority)
        guard port.map(isPort) ?? true else { return false }
        if host == "[::1]" { return true }
        if host.lowercased() == "localhost" { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy(isOctet)
    }

    /// The host and the port after its last colon (outside brackets), if any.
    private static func split(_ authority: Substring) -> (host: Substring, port: Substring?) {
        let hostEnd: Substring.Index
        if authority.hasPrefix("[") {
            guard let bracket = authority.firstIndex(of: "]") else { return (authority, nil) }
            hostEnd = authority.index(after: bracket)
        } else {
            hostEnd = authority.firstIndex(of: ":") ?? authority.endIndex
        }
        let host = authority[..<hostEnd]
        guard hostEnd < authority.endIndex else { return (host, nil) }
        // Anything after the host other than `:port` (a bracketed host followed by more name) is no port.
        guard authority[hostEnd] == ":" else { return (authority, nil) }
        return (host, authority[authority.index(after: hostEnd)...])
    }

    private static func isPort(_ text: Substring) -> Bool {
        !text.isEmpty && text.count <= 5 && text.allSatisfy(\.isASCIIDigit) && Int(text)! <= 65535
    }

    /// 0–255 without a sign or leading zeros (which some resolvers read as octal).
    private static func isOctet(_ text: Substring) -> Bool {
        guard !text.isEmpty, text.count <= 3, text.allSatisfy(\.isASCIIDigit) else { return false }
        return (text.count == 1 || text.first != "0") && Int(text)! <= 255
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
