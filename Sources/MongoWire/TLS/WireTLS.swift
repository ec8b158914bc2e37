import COpenSSL

/// The MongoDB wire protocol's TLS (`serve --mongodb-tls-certificate FILE --mongodb-tls-key FILE`): one OpenSSL
/// context with the server's certificate chain and private key, TLS 1.2 or later, from which every connection gets
/// a session. Errors name the file and what is wrong with it, never the key's contents.
package final class WireTLS: @unchecked Sendable {
    // Unchecked: the context is configured in `init` and only read afterwards, as OpenSSL allows from any thread.
    let context: OpaquePointer

    package struct LoadError: Error, CustomStringConvertible {
        package var description: String
    }

    package init(certificateFile: String, keyFile: String) throws(LoadError) {
        guard let context = SSL_CTX_new(TLS_server_method()) else { throw LoadError(description: Self.reason()) }
        self.context = context
        _ = copenssl_ctx_set_min_tls12(context)
        ERR_clear_error()
        guard SSL_CTX_use_certificate_chain_file(context, certificateFile) == 1 else {
            throw LoadError(
                description: "\(certificateFile): not a PEM certificate (chain) that can be read: \(Self.reason())")
        }
        let mismatch = LoadError(
            description: "\(keyFile): the private key does not belong to the certificate in \(certificateFile)")
        guard SSL_CTX_use_PrivateKey_file(context, keyFile, SSL_FILETYPE_PEM) == 1 else {
            // OpenSSL checks the key against the certificate as it loads it.
            let reason = Self.reason()
            if reason == "key values mismatch" { throw mismatch }
            throw LoadError(description: "\(keyFile): not a PEM private key that can be read (\(reason))")
        }
        guard SSL_CTX_check_private_key(context) == 1 else {
            ERR_clear_error()
            throw mismatch
        }
    }

    deinit { SSL_CTX_free(context) }

    /// The TLS session on `socket` once its handshake completed; nil when the client did not complete one.
    func accept(_ socket: Int32) -> WireTLSSession? {
        guard let ssl = SSL_new(context) else { return nil }
        SSL_set_fd(ssl, socket)
        guard SSL_accept(ssl) == 1 else {
            ERR_clear_error()
            SSL_free(ssl)
            return nil
        }
        return WireTLSSession(ssl: ssl)
    }

    /// OpenSSL's reason for the last failure, without the library's internal codes.
    private static func reason() -> String {
        let code = ERR_get_error()
        ERR_clear_error()
        guard code != 0, let text = ERR_reason_error_string(code) else { return "unknown error" }
        return String(cString: text)
    }
}

/// One connection's TLS session, used by the connection's thread alone.
final class WireTLSSession: @unchecked Sendable {
    // Unchecked: only the thread serving the connection touches the session.
    private let ssl: OpaquePointer

    init(ssl: OpaquePointer) { self.ssl = ssl }

    deinit {
        SSL_shutdown(ssl)
        SSL_free(ssl)
    }

    /// Up to `count` bytes into `buffer`; 0 or less when the peer closed or the session failed.
    func receive(_ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
        let read = Int(SSL_read(ssl, buffer, Int32(clamping: count)))
        if read <= 0 { ERR_clear_error() }
        return read
    }

    /// Writes `count` bytes from `buffer`; 0 or less when the session failed.
    func send(_ buffer: UnsafeRawPointer, _ count: Int) -> Int {
        let written = Int(SSL_write(ssl, buffer, Int32(clamping: count)))
        if written <= 0 { ERR_clear_error() }
        return written
    }
}
