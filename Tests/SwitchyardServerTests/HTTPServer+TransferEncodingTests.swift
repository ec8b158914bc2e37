import Foundation
import Testing

@testable import SwitchyardServer

/// Found by the HTTP surface fuzzer: a body framed by a transfer coding other than chunked (`identity`, `gzip`)
/// has no length the server can read by, and libmicrohttpd waited for the client to close, answering nothing.
@Suite struct HTTPServerTransferEncodingTests {
    static func request(_ transferEncoding: String, body: String) -> [UInt8] {
        Array(
            ("POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nTransfer-Encoding: \(transferEncoding)\r\n"
                + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)").utf8)
    }

    @Test(arguments: ["identity", "gzip", "chunked, identity", "x"])
    func aBodyWithoutChunkedFramingIsRefusedAtOnce(_ coding: String) async throws {
        var router = Router()
        router.add("POST", "/echo") { request, _ in .text("\(request.body.count)") }
        let server = try HTTPServer(configuration: .init(host: "127.0.0.1", port: 0), router: router)
        let exchange = RawHTTPExchange(port: server.port, limit: .seconds(5))
        #expect(
            await exchange.sendFromThread(Self.request(coding, body: "{}")) == .answered(status: 400, streaming: false))
        let chunked = Array(
            "POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n"
                .utf8)
        #expect(await exchange.sendFromThread(chunked) == .answered(status: 200, streaming: false))
        await server.stop()
    }
}
