import CCurl
import CMicroHTTPD
import Foundation
import Testing

/// libmicrohttpd serves on an ephemeral loopback port and libcurl fetches from it: both libraries, for real.
@Suite struct HTTPLibraryTests {
    @Test func curlFetchesFromAMicroHTTPDServer() throws {
        let handler: MHD_AccessHandlerCallback = { _, connection, url, method, _, _, _, _ in
            let body = Array("\(String(cString: method!)) \(String(cString: url!))".utf8)
            let response = body.withUnsafeBytes {
                MHD_create_response_from_buffer(
                    $0.count, UnsafeMutableRawPointer(mutating: $0.baseAddress), .RESPMEM_MUST_COPY)
            }
            defer { MHD_destroy_response(response) }
            return MHD_queue_response(connection, 200, response)
        }
        let flags = MHD_USE_INTERNAL_POLLING_THREAD.rawValue
        let daemon = try #require(
            withVaList([MHD_OPTION.END.rawValue]) { options in
                MHD_start_daemon_va(flags, 0, nil, nil, handler, nil, options)
            })
        defer { MHD_stop_daemon(daemon) }
        let port = cmhd_daemon_port(daemon)
        #expect(port > 0)

        curl_global_init(Int(CURL_GLOBAL_DEFAULT))
        let easy = try #require(curl_easy_init())
        defer { curl_easy_cleanup(easy) }
        let received = ReceivedBytes()
        ccurl_setopt_string(easy, CURLOPT_URL, "http://127.0.0.1:\(port)/app/books")
        ccurl_setopt_long(easy, CURLOPT_NOSIGNAL, 1)
        ccurl_setopt_write_function(easy) { pointer, size, count, user in
            let sink = Unmanaged<ReceivedBytes>.fromOpaque(user!).takeUnretainedValue()
            sink.bytes.append(contentsOf: UnsafeRawBufferPointer(start: pointer, count: size * count))
            return size * count
        }
        ccurl_setopt_pointer(easy, CURLOPT_WRITEDATA, Unmanaged.passUnretained(received).toOpaque())
        #expect(curl_easy_perform(easy) == CURLE_OK)
        var status = 0
        ccurl_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
        #expect(status == 200)
        #expect(String(decoding: received.bytes, as: UTF8.self) == "GET /app/books")
        #expect(String(cString: ccurl_version_info().pointee.ssl_version).contains("OpenSSL"))
    }
}

/// The curl write callback's sink, reached through the user pointer (C callbacks cannot capture).
private final class ReceivedBytes {
    var bytes: [UInt8] = []
}
