/// The head of an HTTP/1.1 request (request line and header fields, up to the empty line) as bytes arrive, judged
/// before libmicrohttpd reads it: libmicrohttpd answers heads it cannot take (too long, malformed, an unsupported
/// version) with HTML pages of its own, which no handler can change, so `FrontDoor` refuses them first with the
/// App Services error shape. It refuses at least what libmicrohttpd would, and everything over `Limits`, which
/// libmicrohttpd's per-connection memory holds with room to spare.
enum RequestHead {
    struct Limits: Sendable {
        /// Bytes of the request line, without its line end (nginx's buffer for one is 8 KB too).
        var requestLine = 8 * 1024
        /// Bytes of the whole head, the request line and the empty line that ends it included.
        var head = 8 * 1024
        /// Header fields: each costs libmicrohttpd a record in the connection's memory besides its bytes.
        var fields = 100

        /// Bytes enough to judge any head: one more than the longest head or request line (with its CR LF) taken.
        var peek: Int { max(head, requestLine + 2) + 1 }
    }

    enum Verdict: Equatable {
        /// The head has not ended yet, and what arrived is well-formed and within the limits.
        case incomplete
        /// The head ended, well-formed and within the limits.
        case complete
        case refused(APIError)
    }

    /// Judges `bytes`, the start of a connection's first request as the socket holds it so far; at most
    /// `Limits.peek` bytes are needed to judge any head.
    static func verdict(_ bytes: UnsafeRawBufferPointer, limits: Limits) -> Verdict {
        var start = 0
        // RFC 9112 2.2: empty lines before a request line are ignored (libmicrohttpd does so too).
        while start < bytes.count, bytes[start] == lineFeed || bytes[start] == carriageReturn {
            start += 1
        }
        guard let requestLineEnd = lineEnd(in: bytes, from: start) else {
            if bytes.count - start > limits.requestLine { return .refused(.uriTooLong(limit: limits.requestLine)) }
            // Empty lines count against the head: a stream of them is no request.
            if bytes.count >= limits.head { return .refused(malformed("request line")) }
            return partialRequestLineVerdict(bytes[start...])
        }
        let requestLine = UnsafeRawBufferPointer(rebasing: bytes[start..<requestLineEnd.content])
        if requestLine.count > limits.requestLine { return .refused(.uriTooLong(limit: limits.requestLine)) }
        if let refusal = requestLineRefusal(requestLine) { return .refused(refusal) }
        var position = requestLineEnd.next
        var fields = 0
        while true {
            guard let end = lineEnd(in: bytes, from: position) else {
                if bytes.count >= limits.head { return .refused(.headersTooLarge(limit: limits.head)) }
                return fieldRefusal(UnsafeRawBufferPointer(rebasing: bytes[position...]), complete: false)
                    .map(Verdict.refused) ?? .incomplete
            }
            if end.next > limits.head { return .refused(.headersTooLarge(limit: limits.head)) }
            if end.content == position { return .complete }
            fields += 1
            if fields > limits.fields { return .refused(.headersTooLarge(fields: limits.fields)) }
            if let refusal = fieldRefusal(
                UnsafeRawBufferPointer(rebasing: bytes[position..<end.content]), complete: true)
            {
                return .refused(refusal)
            }
            position = end.next
        }
    }

    private static let lineFeed = UInt8(ascii: "\n")
    private static let carriageReturn = UInt8(ascii: "\r")
    private static let space = UInt8(ascii: " ")
    private static let tab = UInt8(ascii: "\t")
    private static let colon = UInt8(ascii: ":")

    /// Where the line starting at `from` ends: its content (without CR LF, or a bare LF as libmicrohttpd accepts
    /// too) and where the next line starts; nil when it has not ended yet.
    private static func lineEnd(in bytes: UnsafeRawBufferPointer, from: Int) -> (content: Int, next: Int)? {
        guard from < bytes.count, let feed = bytes[from...].firstIndex(of: lineFeed) else { return nil }
        let content = feed > from && bytes[feed - 1] == carriageReturn ? feed - 1 : feed
        return (content, feed + 1)
    }

    /// RFC 9110 5.6.2: the characters of a method or a field name.
    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default: "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    /// A request target's characters: visible ASCII, and bytes above it (raw UTF-8, which clients do send).
    private static func isTargetCharacter(_ byte: UInt8) -> Bool {
        byte > 0x20 && byte != 0x7F
    }

    /// A request line not ended yet is refused as soon as it cannot become a valid one: a TLS handshake or other
    /// binary sent to this port is answered at once rather than when the connection times out.
    private static func partialRequestLineVerdict(_ bytes: Slice<UnsafeRawBufferPointer>) -> Verdict {
        var index = bytes.startIndex
        while index < bytes.endIndex, isTokenCharacter(bytes[index]) { index += 1 }
        guard index < bytes.endIndex else { return .incomplete }
        guard bytes[index] == space, index > bytes.startIndex else { return .refused(malformed("request line")) }
        for byte in bytes[(index + 1)...] where !isTargetCharacter(byte) && byte != space && byte != carriageReturn {
            return .refused(malformed("request line"))
        }
        return .incomplete
    }

    /// `method SP request-target SP HTTP/d.d` (RFC 9112 3), of a version this server speaks (1.x).
    private static func requestLineRefusal(_ line: UnsafeRawBufferPointer) -> APIError? {
        guard let firstSpace = line.firstIndex(of: space), firstSpace > 0,
            line[..<firstSpace].allSatisfy(isTokenCharacter)
        else { return malformed("request line") }
        guard let lastSpace = line.lastIndex(of: space), lastSpace > firstSpace + 1,
            line[(firstSpace + 1)..<lastSpace].allSatisfy(isTargetCharacter)
        else { return malformed("request line") }
        let version = Array(line[(lastSpace + 1)...])
        let digits = UInt8(ascii: "0")...UInt8(ascii: "9")
        guard version.count == 8, version.starts(with: "HTTP/".utf8), version[6] == UInt8(ascii: "."),
            digits.contains(version[5]), digits.contains(version[7])
        else { return malformed("HTTP version") }
        return version[5] == UInt8(ascii: "1")
            ? nil : .httpVersionNotSupported(String(decoding: version, as: UTF8.self))
    }

    /// `name: value` (RFC 9112 5): a token name right before the colon, a value without control characters but tab,
    /// no line folding (RFC 9112 5.2 lets a server refuse it), and a `Content-Length` of digits. A field not ended
    /// yet is judged on what arrived of it.
    private static func fieldRefusal(_ line: UnsafeRawBufferPointer, complete: Bool) -> APIError? {
        guard let first = line.first else { return nil }
        if first == space || first == tab { return malformed("header field (folded lines are not accepted)") }
        guard let colonIndex = line.firstIndex(of: colon) else {
            let nameSoFar = line.allSatisfy { isTokenCharacter($0) || (!complete && $0 == carriageReturn) }
            return complete || !nameSoFar ? malformed("header field") : nil
        }
        guard colonIndex > 0, line[..<colonIndex].allSatisfy(isTokenCharacter) else { return malformed("header field") }
        let value = line[(colonIndex + 1)...]
        for byte in value where (byte < 0x20 && byte != tab) || byte == 0x7F {
            if !complete && byte == carriageReturn { continue }
            return malformed("header field")
        }
        guard complete, isContentLength(UnsafeRawBufferPointer(rebasing: line[..<colonIndex])) else { return nil }
        return contentLengthRefusal(value)
    }

    private static func isContentLength(_ name: UnsafeRawBufferPointer) -> Bool {
        let expected = "content-length".utf8
        return name.count == expected.count && zip(name, expected).allSatisfy { $0 | 0x20 == $1 }
    }

    /// libmicrohttpd answers a `Content-Length` of anything but digits with 400 and one over 64 bits with 413.
    private static func contentLengthRefusal(_ value: Slice<UnsafeRawBufferPointer>) -> APIError? {
        func isWhitespace(_ byte: UInt8) -> Bool { byte == space || byte == tab }
        let digits = value.drop(while: isWhitespace).reversed().drop(while: isWhitespace).reversed()
        guard !digits.isEmpty, digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else {
            return .badRequest("Content-Length must be a decimal number of bytes")
        }
        var length: UInt64 = 0
        for digit in digits {
            let (times, overflowTimes) = length.multipliedReportingOverflow(by: 10)
            let (sum, overflowSum) = times.addingReportingOverflow(UInt64(digit - UInt8(ascii: "0")))
            if overflowTimes || overflowSum {
                return APIError(
                    status: 413, code: "PayloadTooLarge", message: "Content-Length is larger than any body can be")
            }
            length = sum
        }
        return nil
    }

    private static func malformed(_ part: String) -> APIError {
        .badRequest("the request's \(part) is malformed (RFC 9112)")
    }
}
