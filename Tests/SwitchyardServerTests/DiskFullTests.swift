import BSON
import DocumentStore
import Foundation
import Switchyard
import TestSupport
import Testing

/// A store on a real filesystem that fills up: the client API answers 507 `OutOfDiskSpace` (a server failure, not
/// the client's), never with a path of the data directory, and serves again once space is freed.
@Suite(.timeLimit(.minutes(2))) struct DiskFullTests {
    @Test(.enabled(if: SmallFilesystem.canMount, "mounting a tmpfs needs root"))
    func writesAndLoginsAnswer507WithoutPathsAndRecoverWhenSpaceReturns() async throws {
        let disk = try SmallFilesystem(megabytes: 4)
        let data = disk.path + "/data"
        try await ServedApp.with(FunctionRegistry(), store: .sqlite(directory: data)) { served in
            let token = try await served.loginAnonymously().accessToken
            let ns = #""database": "shop", "collection": "items""#
            let filler = disk.fill()

            let login = try await served.post(
                "\(served.appBase)/auth/providers/anon-user/login", #"{"provider": "anon-user"}"#)
            #expect(login.status == 507, "\(login.text)")
            #expect(login.errorCode == "OutOfDiskSpace")
            #expect(!login.text.contains(disk.path), "\(login.text)")
            let insert = try await served.call(
                "insertOne",
                #"[{\#(ns), "document": {"_id": 1, "text": "\#(String(repeating: "x", count: 20_000))"}}]"#,
                service: "mongodb-atlas", token: token)
            #expect(insert.status == 507, "\(insert.text)")
            #expect(insert.errorCode == "OutOfDiskSpace")
            #expect(!insert.text.contains(disk.path), "\(insert.text)")

            disk.free(filler)
            #expect(try await served.loginAnonymously().userId.isEmpty == false)
            let inserted = try await served.atlas("insertOne", #"{\#(ns), "document": {"_id": 1}}"#, token: token)
            #expect(inserted == ["insertedId": .int32(1)])
        }
    }
}
