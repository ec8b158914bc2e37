import DocumentStore
import Foundation
import MongoWire
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The wire protocol over TLS: a driver that trusts the server's certificate reads and writes; a plain connection
/// is closed; a certificate and key that do not go together are refused with the file named.
@Suite struct WireTLSTests {
    /// A self-signed certificate for 127.0.0.1 and its key, made by the openssl command.
    static func certificate(in directory: TemporaryDirectory, name: String = "server") async throws -> (String, String)
    {
        let certificate = directory.path + "/\(name).pem"
        let key = directory.path + "/\(name)-key.pem"
        let made = try await FinishedProcess.run(
            "/usr/bin/openssl",
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout",
                key, "-out", certificate, "-days", "1", "-subj", "/CN=127.0.0.1", "-addext",
                "subjectAltName=IP:127.0.0.1",
            ])
        try #require(made.status == 0, "\(made.errors)")
        return (certificate, key)
    }

    @Test func aDriverTrustingTheCertificateReadsAndWritesAndAPlainConnectionIsClosed() async throws {
        let directory = try TemporaryDirectory(prefix: "wiretls")
        let (certificate, key) = try await Self.certificate(in: directory)
        let store = try await DocumentStore.open(.memory)
        let server = try WireServer.start(
            store: store,
            configuration: .init(port: 0, tls: try WireTLS(certificateFile: certificate, keyFile: key)))
        #expect(server.connectionString.hasSuffix("&tls=true"))
        let script = """
            import sys, pymongo
            client = pymongo.MongoClient(sys.argv[1], tlsCAFile=sys.argv[2], serverSelectionTimeoutMS=20000)
            shelf = client.tlstests.shelf
            shelf.insert_one({"_id": 1, "title": "Sealed"})
            assert shelf.find_one() == {"_id": 1, "title": "Sealed"}
            print("ok")
            """
        let python = try await PyMongo.pypi()
        let run = try await FinishedProcess.run(python, ["-c", script, server.connectionString, certificate])
        #expect(run.status == 0 && run.output == "ok\n", "\(run.output)\(run.errors)")
        #expect(try await store.database("tlstests").collection("shelf").countDocuments() == 1)

        // A plain OP_MSG is no TLS handshake: the server closes the connection without an answer.
        let answer = try await offPool {
            let socket = try WireServerTests.connect(server.port)
            defer { close(socket) }
            return try WireServerTests.ping(socket)
        }
        #expect(answer == nil)
        await server.stop()
        await store.close()
    }

    @Test func aKeyThatIsNotTheCertificatesIsRefusedNamingTheFiles() async throws {
        let directory = try TemporaryDirectory(prefix: "wiretls")
        let (certificate, _) = try await Self.certificate(in: directory)
        let (_, otherKey) = try await Self.certificate(in: directory, name: "other")
        #expect {
            try WireTLS(certificateFile: certificate, keyFile: otherKey)
        } throws: { error in
            "\(error)" == "\(otherKey): the private key does not belong to the certificate in \(certificate)"
        }
        #expect {
            try WireTLS(certificateFile: directory.path + "/missing.pem", keyFile: otherKey)
        } throws: { error in
            "\(error)".hasPrefix("\(directory.path)/missing.pem: not a PEM certificate")
        }
        #expect {
            try WireTLS(certificateFile: otherKey, keyFile: otherKey)
        } throws: { error in
            "\(error)".hasPrefix("\(otherKey): not a PEM certificate")
        }
    }
}
