import CCurl
import Synchronization

/// One request: waiting in the loop's queue, then in flight on an easy handle the loop lends it, with the
/// buffers curl's callbacks fill and the continuation to resume.
///
/// `@unchecked Sendable`: the caller creates it and hands it to the transfer loop through a `Mutex`; from then
/// on only the loop thread touches it (curl calls the callbacks on that thread), so no state is shared.
final class CurlTransfer: @unchecked Sendable {
    let id: Int
    let request: HTTPRequest
    /// Set by the waiting task's cancellation handler, read by the loop thread.
    let isCancelled = Atomic(false)
    /// The easy handle while the transfer is in flight (lent by the loop, given back by `detach`).
    private(set) var easy: UnsafeMutableRawPointer?
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private var errorBuffer: UnsafeMutablePointer<CChar>?
    private var continuation: CheckedContinuation<Result<HTTPResponse, HTTPClientError>, Never>?

    private var status = 0
    private var responseHeaders = HTTPHeaders()
    private var responseBody: [UInt8] = []
    private var bodyTooLarge = false

    init(id: Int, request: HTTPRequest, continuation: CheckedContinuation<Result<HTTPResponse, HTTPClientError>, Never>)
    {
        self.id = id
        self.request = request
        self.continuation = continuation
    }

    deinit {
        curl_slist_free_all(headerList)
        errorBuffer?.deallocate()
    }

    /// Configures `easy` (freshly made or reset) for this request; on failure the handle is still the loop's.
    func attach(
        _ easy: UnsafeMutableRawPointer, trustedCertificatesFile: String?
    ) throws(HTTPClientError) {
        let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        buffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        errorBuffer = buffer
        try configure(easy, errorBuffer: buffer, trustedCertificatesFile: trustedCertificatesFile)
        self.easy = easy
    }

    /// Takes the easy handle back from a finished transfer.
    func detach() -> UnsafeMutableRawPointer? {
        defer { easy = nil }
        return easy
    }

    /// Resumes the waiting task once; later calls do nothing.
    func finish(_ result: Result<HTTPResponse, HTTPClientError>) {
        continuation?.resume(returning: result)
        continuation = nil
    }

    /// Turns curl's result for this transfer into the response or a typed error.
    func finish(code: CURLcode) {
        guard code == CURLE_OK else {
            finish(.failure(error(for: code)))
            return
        }
        var version = 0
        if let easy { ccurl_getinfo_long(easy, CURLINFO_HTTP_VERSION, &version) }
        finish(
            .success(
                HTTPResponse(
                    status: status, headers: responseHeaders, body: responseBody,
                    protocolVersion: Self.versionName(version))))
    }

    /// New connections curl opened for this transfer (0 when it reused one).
    var connectionsOpened: Int {
        guard let easy else { return 0 }
        var count = 0
        ccurl_getinfo_long(easy, CURLINFO_NUM_CONNECTS, &count)
        return count
    }

    private static func versionName(_ version: Int) -> String {
        switch version {
        case CURL_HTTP_VERSION_1_0: "1.0"
        case CURL_HTTP_VERSION_2_0: "2"
        case CURL_HTTP_VERSION_3: "3"
        default: "1.1"
        }
    }

    var redactedURL: String { Self.redact(request.url) }

    private func configure(
        _ easy: UnsafeMutableRawPointer, errorBuffer: UnsafeMutablePointer<CChar>, trustedCertificatesFile: String?
    ) throws(HTTPClientError) {
        let url = request.url
        let lowered = url.lowercased()
        guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://") else {
            throw .invalidRequest("\(Self.redact(url)) is not an http or https URL")
        }
        guard !request.method.rawValue.isEmpty, request.method.rawValue.utf8.allSatisfy(Self.isTokenByte) else {
            throw .invalidRequest("\"\(request.method.rawValue)\" is not an HTTP method")
        }
        var options: [(CURLoption, Int)] = [
            (CURLOPT_NOSIGNAL, 1),
            (CURLOPT_TIMEOUT_MS, Self.milliseconds(request.timeout)),
            (CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(request.timeout)),
            (CURLOPT_FOLLOWLOCATION, request.followRedirects ? 1 : 0),
            (CURLOPT_MAXREDIRS, 10),
        ]
        // Refuse to be sent to other protocols by a redirect.
        options.append((CURLOPT_PROTOCOLS, Int(CURLPROTO_HTTP | CURLPROTO_HTTPS)))
        options.append((CURLOPT_REDIR_PROTOCOLS, Int(CURLPROTO_HTTP | CURLPROTO_HTTPS)))
        switch request.httpVersion {
        case .http1_1:
            options.append((CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_1_1))
        case .http2:
            options.append((CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_2TLS))
            // Wait for a connection being set up to say whether it multiplexes rather than opening another.
            if lowered.hasPrefix("https://") { options.append((CURLOPT_PIPEWAIT, 1)) }
        case .http2PriorKnowledge:
            options.append((CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE))
            options.append((CURLOPT_PIPEWAIT, 1))
        }
        for (option, value) in options { ccurl_setopt_long(easy, option, value) }
        if let trustedCertificatesFile { ccurl_setopt_string(easy, CURLOPT_CAINFO, trustedCertificatesFile) }
        if ccurl_setopt_string(easy, CURLOPT_URL, url) != CURLE_OK {
            throw .invalidRequest("\(Self.redact(url)) is not a valid URL")
        }
        ccurl_setopt_pointer(easy, CURLOPT_ERRORBUFFER, errorBuffer)
        // The loop finds the transfer for a finished handle by this id (ids start at 1, never a null pointer).
        ccurl_setopt_pointer(easy, CURLOPT_PRIVATE, UnsafeMutableRawPointer(bitPattern: id))

        let method = request.method.rawValue
        let sendsBody = !request.body.isEmpty || ["POST", "PUT", "PATCH"].contains(method)
        if sendsBody {
            ccurl_setopt_long(easy, CURLOPT_POSTFIELDSIZE, request.body.count)
            // COPYPOSTFIELDS copies the bytes now (POSTFIELDS would keep a pointer into our array).
            request.body.withUnsafeBytes { bytes in
                let empty: [UInt8] = [0]
                if let base = bytes.baseAddress {
                    _ = ccurl_setopt_pointer(easy, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: base))
                } else {
                    empty.withUnsafeBytes {
                        _ = ccurl_setopt_pointer(
                            easy, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: $0.baseAddress))
                    }
                }
            }
            if method != "POST" { ccurl_setopt_string(easy, CURLOPT_CUSTOMREQUEST, method) }
        } else if method == "HEAD" {
            ccurl_setopt_long(easy, CURLOPT_NOBODY, 1)
        } else if method == "GET" {
            ccurl_setopt_long(easy, CURLOPT_HTTPGET, 1)
        } else {
            ccurl_setopt_string(easy, CURLOPT_CUSTOMREQUEST, method)
        }

        var lines: [String] = []
        for (name, value) in request.headers {
            guard !name.isEmpty, name.utf8.allSatisfy(Self.isTokenByte) else {
                throw .invalidRequest("\"\(name)\" is not a valid header name")
            }
            // A line break in a value would smuggle in another header; the value itself stays out of the message.
            guard !value.utf8.contains(where: { $0 == 0x0A || $0 == 0x0D || $0 == 0 }) else {
                throw .invalidRequest("the value of header \(name) contains a line break")
            }
            lines.append(value.isEmpty ? "\(name);" : "\(name): \(value)")
        }
        // curl would wait for "100 Continue" before large bodies and add a form content type to bodies.
        if !request.headers.contains("Expect") { lines.append("Expect:") }
        if sendsBody && !request.headers.contains("Content-Type") { lines.append("Content-Type:") }
        for line in lines { headerList = curl_slist_append(headerList, line) }
        ccurl_setopt_slist(easy, CURLOPT_HTTPHEADER, headerList)

        let me = Unmanaged.passUnretained(self).toOpaque()
        ccurl_setopt_pointer(easy, CURLOPT_WRITEDATA, me)
        ccurl_setopt_write_function(easy) { pointer, size, count, user in
            guard let user else { return 0 }
            let transfer = Unmanaged<CurlTransfer>.fromOpaque(user).takeUnretainedValue()
            let length = size * count
            guard transfer.responseBody.count + length <= transfer.request.maximumResponseBytes else {
                transfer.bodyTooLarge = true
                return 0
            }
            transfer.responseBody.append(contentsOf: UnsafeRawBufferPointer(start: pointer, count: length))
            return length
        }
        ccurl_setopt_pointer(easy, CURLOPT_HEADERDATA, me)
        ccurl_setopt_header_function(easy) { pointer, size, count, user in
            guard let user else { return 0 }
            let transfer = Unmanaged<CurlTransfer>.fromOpaque(user).takeUnretainedValue()
            let length = size * count
            transfer.receiveHeaderLine(UnsafeRawBufferPointer(start: pointer, count: length))
            return length
        }
    }

    /// Called per header line, for every response on the way (100 Continue, redirects): a status line starts
    /// a new set.
    private func receiveHeaderLine(_ bytes: UnsafeRawBufferPointer) {
        // Trim CR LF as bytes: in a Swift String "\r\n" is one Character, which `hasSuffix("\n")` misses.
        var end = bytes.count
        while end > 0, bytes[end - 1] == 0x0A || bytes[end - 1] == 0x0D { end -= 1 }
        let line = String(decoding: bytes[..<end], as: UTF8.self)
        if line.hasPrefix("HTTP/") {
            responseHeaders = HTTPHeaders()
            let parts = line.split(separator: " ", maxSplits: 2)
            if parts.count >= 2, let code = Int(parts[1]) { status = code }
            responseBody.removeAll(keepingCapacity: true)
        } else if let colon = line.firstIndex(of: ":") {
            let name = String(line[..<colon])
            let value = line[line.index(after: colon)...].drop { $0 == " " || $0 == "\t" }
            responseHeaders.add(name: name, value: String(value))
        }
    }

    private func error(for code: CURLcode) -> HTTPClientError {
        let detail = errorBuffer.map { String(cString: $0) } ?? ""
        let reason = detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
        let message = "\(request.method.rawValue) \(redactedURL): \(Self.redactURLs(in: reason))"
        switch code {
        case CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            return .couldNotConnect(message)
        case CURLE_OPERATION_TIMEDOUT:
            return .timedOut(message)
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
            CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ENGINE_SETFAILED,
            CURLE_SSL_ENGINE_INITFAILED, CURLE_SSL_SHUTDOWN_FAILED, CURLE_SSL_CRL_BADFILE, CURLE_SSL_ISSUER_ERROR,
            CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_CLIENTCERT:
            return .tls(message)
        case CURLE_WRITE_ERROR where bodyTooLarge:
            return .other(
                code: Int(code.rawValue),
                message:
                    "\(request.method.rawValue) \(redactedURL): the response body is larger than \(request.maximumResponseBytes) bytes"
            )
        default:
            return .other(code: Int(code.rawValue), message: message)
        }
    }

    static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return 1 }
        let total = seconds.multipliedReportingOverflow(by: 1000)
        if total.overflow { return Int.max }
        // At least 1 ms: curl reads 0 as "no timeout".
        return max(1, Int(total.partialValue) + Int(attoseconds / 1_000_000_000_000_000))
    }

    /// `scheme://host[:port]/path`: user info and query are left out, since either may hold credentials.
    static func redact(_ url: String) -> String {
        var rest = Substring(url)
        var scheme = ""
        if let range = rest.range(of: "://") {
            scheme = String(rest[..<range.upperBound])
            rest = rest[range.upperBound...]
        }
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        var path = rest[authorityEnd...]
        if let cut = path.firstIndex(where: { $0 == "?" || $0 == "#" }) { path = path[..<cut] }
        return scheme + authority + path
    }

    /// curl's messages may quote the URL; redact any that appear.
    private static func redactURLs(in text: String) -> String {
        text.split(separator: " ", omittingEmptySubsequences: false).map { word in
            word.contains("://") ? redact(String(word)) : String(word)
        }.joined(separator: " ")
    }

    /// RFC 9110 token characters, for methods and header names.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default: "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}
