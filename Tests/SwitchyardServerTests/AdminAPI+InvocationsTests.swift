import BSON
import Foundation
import Switchyard
import Testing

@testable import SwitchyardServer

@Suite struct AdminAPIInvocationsTests {
    private func invocations(_ server: AdminTestServer, _ query: String = "") async throws -> [BSONDocument] {
        let response = try await server.get("/invocations\(query)")
        #expect(response.status == 200)
        return response.document?["invocations"]?.arrayValue?.compactMap(\.documentValue) ?? []
    }

    @Test func recordsAreListedWithTheirLogsAndFilteredByFunctionTriggerOutcomeAndTime() async throws {
        try await AdminTestServer.run { server in
            let before = Date()
            #expect(
                try await server.post(
                    "/databases/product/collections/book/documents", #"{"volumeInfo": {"title": "Dune"}}"#
                ).status == 201)
            try await server.settle()
            _ = try await server.app.call(function: "ping", arguments: [], user: .system)

            let all = try await invocations(server)
            #expect(all.count == 2)
            let books = try #require(all.first)
            #expect(books["function"] == "sentTopicNotification")
            #expect(books["trigger"] == "onBookPushNotification")
            #expect(books["outcome"] == "success")
            #expect(books["attempt"]?.int64Value == 1)
            #expect(books["logs"]?.arrayValue?.first?.stringValue?.contains("sent book_added") == true)

            #expect(try await invocations(server, "?function=ping").map { $0["function"] } == ["ping"])
            #expect(try await invocations(server, "?trigger=onBookPushNotification").count == 1)
            #expect(try await invocations(server, "?outcome=failure").isEmpty)
            #expect(try await invocations(server, "?outcome=success").count == 2)
            #expect(try await invocations(server, "?limit=1").map { $0["function"] } == ["ping"])
            let millis = Int64(before.timeIntervalSince1970 * 1000)
            #expect(try await invocations(server, "?since=\(millis)").count == 2)
            #expect(try await invocations(server, "?until=\(millis)").isEmpty)
            #expect(try await invocations(server, "?since=2000-01-01T00:00:00Z&until=2000-01-02T00:00:00.5Z").isEmpty)
        }
    }

    @Test func aServedCallIsListedAsSoonAsItIsAnswered() async throws {
        try await AdminTestServer.run { server in
            let user = try await server.loginAnonymously()
            try await server.settle()
            for count in 1...20 {
                let call = try await server.client.post(
                    url: server.clientURL("/functions/call"), body: Array(#"{"name":"ping","arguments":[]}"#.utf8),
                    headers: ["Authorization": "Bearer \(user.accessToken)"])
                #expect(call.status == 200)
                let listed = try await invocations(server, "?function=ping&limit=100")
                #expect(listed.count == count)
                #expect(listed.last?["userId"]?.stringValue == user.id)
                #expect(listed.last?["outcome"] == "success")
            }
        }
    }

    @Test func aTriggerRunIsReplayedAgainstTheDataOfItsEvent() async throws {
        try await AdminTestServer.run { server in
            #expect(
                try await server.post(
                    "/databases/product/collections/book/documents", #"{"_id": "b1", "volumeInfo": {"title": "Dune"}}"#
                ).status == 201)
            try await server.settle()
            _ = try await server.app.call(function: "ping", arguments: [], user: .system)
            let all = try await invocations(server)
            let run = try #require(all.first { $0["trigger"] == "onBookPushNotification" }?["_id"]?.objectIdValue)
            let response = try await server.post("/invocations/\(run.hex)/replay")
            #expect(response.status == 200)
            let event = try #require(response.document?["events"]?.arrayValue?.first?.documentValue)
            #expect(event["same"] == true)
            #expect(event["documentKey"] == ["_id": "b1"])
            // The served run's send went through the FCM emulator over HTTP and was still attributed to it.
            let sentThen = event["then"]?.documentValue?["messages"]?.arrayValue
            #expect(sentThen?.count == 1)
            #expect(sentThen == event["now"]?.documentValue?["messages"]?.arrayValue)

            let call = try #require(all.first { $0["function"] == "ping" }?["_id"]?.objectIdValue)
            #expect(try await server.post("/invocations/\(call.hex)/replay").status == 400)
            #expect(try await server.post("/invocations/\(ObjectId().hex)/replay").status == 404)
            #expect(try await server.post("/invocations/nope/replay").status == 400)
        }
    }

    @Test func badFiltersAre400() async throws {
        try await AdminTestServer.run { server in
            for query in ["?outcome=maybe", "?limit=0", "?limit=abc", "?limit=1001", "?since=yesterday"] {
                let response = try await server.get("/invocations\(query)")
                #expect(response.status == 400, "\(query)")
                #expect(response.errorCode == "BadRequest")
            }
            #expect(try await server.get("/invocations/events?outcome=maybe").status == 400)
        }
    }

    @Test func theLiveFeedSendsEachNewRecordThatMatches() async throws {
        try await AdminTestServer.run { server in
            let port = server.server.http.port
            let everything = try await LiveEventReader.open(
                port: port, path: "/admin/v1/invocations/events", token: server.token)
            let failures = try await LiveEventReader.open(
                port: port, path: "/admin/v1/invocations/events?outcome=failure", token: server.token)
            defer {
                everything.stop()
                failures.stop()
            }
            #expect(everything.status == 200)
            _ = try await server.app.call(function: "ping", arguments: [], user: .system)
            #expect(
                try await server.post(
                    "/databases/product/collections/book/documents", #"{"volumeInfo": {"title": "Dune"}}"#
                ).status == 201)
            let first = try #require(await everything.next("invocation"))
            #expect(try ExtendedJSON.parseDocument(first.data)["function"] == "ping")
            let second = try #require(await everything.next("invocation"))
            let record = try ExtendedJSON.parseDocument(second.data)
            #expect(record["function"] == "sentTopicNotification")
            #expect(record["outcome"] == "success")

            // A failing call: only now does the failure feed say anything.
            await #expect(throws: (any Error).self) {
                _ = try await server.app.call(function: "updateFCMUserToken", arguments: [], user: .system)
            }
            let failure = try #require(await failures.next("invocation"))
            let failed = try ExtendedJSON.parseDocument(failure.data)
            #expect(failed["function"] == "updateFCMUserToken")
            #expect(failed["outcome"] == "failure")
            #expect(failed["error"]?.stringValue?.contains("takes 2 arguments") == true)
        }
    }
}
