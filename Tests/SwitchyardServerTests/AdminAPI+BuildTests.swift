import BSON
import Foundation
import Switchyard
import Testing

@testable import SwitchyardServer

/// `GET /build`: what `serve --watch` recorded about its last build, for the dashboard's banner.
@Suite struct AdminAPIBuildTests {
    @Test func withoutAWatchingSupervisorThereIsNoBuild() async throws {
        try await AdminTestServer.run { server in
            let response = try await server.get("/build")
            #expect(response.status == 200)
            #expect(response.document == ["state": "none"])
        }
    }

    @Test func aFailedBuildIsReportedWithItsErrorsAndTime() async throws {
        try await AdminTestServer.run { server in
            let time = Date(timeIntervalSince1970: 1_790_000_000)
            let errors = "functions/greet.swift:3:5: error: expected expression\n    return\n    ^"
            try BuildStatus(state: .failed, time: time, output: errors).write(dataDirectory: server.dataDirectory)
            let failed = try #require(try await server.get("/build").document)
            #expect(failed["state"] == "failed")
            #expect(failed["output"] == .string(errors))
            #expect(failed["time"] == .datetime(BSONDate(time)))

            try BuildStatus(state: .succeeded).write(dataDirectory: server.dataDirectory)
            let succeeded = try #require(try await server.get("/build").document)
            #expect(succeeded["state"] == "succeeded")
            #expect(succeeded["output"] == "")
        }
    }

    @Test func anUnreadableStatusFileReadsAsNoBuild() async throws {
        try await AdminTestServer.run { server in
            try Data("{\"state\": \"compiling".utf8).write(
                to: URL(fileURLWithPath: "\(server.dataDirectory)/\(BuildStatus.file)"))
            #expect(try await server.get("/build").document == ["state": "none"])
        }
    }
}
