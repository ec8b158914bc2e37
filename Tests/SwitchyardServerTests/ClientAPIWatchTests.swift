import BSON
import Foundation
import Switchyard
import Testing

@testable import SwitchyardServer

/// The Realm SDKs' `collection.watch()` over real HTTP: the streaming request realm-core's
/// `make_streaming_request` sends, read as server-sent events the way its `WatchStream` reads them.
@Suite(.timeLimit(.minutes(1))) struct ClientAPIWatchTests {
    static let namespace = #""database": "shop", "collection": "books""#

    static func withApp(
        keepAlive: Duration = .seconds(15), _ body: (ServedApp, ServedApp.Login) async throws -> Void
    ) async throws {
        try await ServedApp.with(
            FunctionRegistry(), queries: ClientAPI.Configuration(watchKeepAliveInterval: keepAlive)
        ) { served in
            try await body(served, try await served.loginAnonymously())
        }
    }

    /// The path realm-core asks for: `baas_request` is the standard base64 of the call's JSON, percent-encoded.
    static func watchPath(
        _ argument: String = "", namespace: String = namespace, name: String = "watch", token: String?,
        app: String = ServedApp.appId
    ) -> String {
        let call = #"{"arguments": [{\#(namespace)\#(argument)}], "name": "\#(name)", "service": "mongodb-atlas"}"#
        let encoded = Data(call.utf8).base64EncodedString()
            .addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let access = token.map { "&baas_at=\($0)" } ?? ""
        return "\(ClientAPI.basePath)/app/\(app)/functions/call?baas_request=\(encoded)\(access)"
    }

    static func open(_ served: ServedApp, _ argument: String = "", token: String?, comments: Bool = false)
        async throws -> LiveEventReader
    {
        try await LiveEventReader.open(
            port: served.server.http.port, path: watchPath(argument, token: token), token: nil, comments: comments)
    }

    /// The next change event, decoded as realm-core's `WatchStream` decodes it (`%25`, `%0A`, `%0D`, then
    /// Extended JSON).
    static func nextChange(_ reader: LiveEventReader) async throws -> BSONDocument {
        let event = try #require(await reader.next("message"))
        let data = event.data.replacingOccurrences(of: "%0A", with: "\n").replacingOccurrences(of: "%0D", with: "\r")
            .replacingOccurrences(of: "%25", with: "%")
        return try ExtendedJSON.parseDocument(data)
    }

    @Test func seesInsertUpdateReplaceAndDeleteEventsAsCanonicalExtendedJSON() async throws {
        try await Self.withApp { served, login in
            let reader = try await Self.open(served, token: login.accessToken)
            #expect(reader.status == 200)
            func atlas(_ action: String, _ argument: String) async throws {
                _ = try await served.atlas(action, "{\(Self.namespace), \(argument)}", token: login.accessToken)
            }
            try await atlas("insertOne", #""document": {"_id": 1, "title": "Dune", "note": "100%0A sure"}"#)
            try await atlas("updateOne", #""query": {"_id": 1}, "update": {"$set": {"pages": 412}}"#)
            try await atlas("findOneAndReplace", #""filter": {"_id": 1}, "update": {"title": "Emma"}"#)
            try await atlas("deleteOne", #""query": {"_id": 1}"#)

            let insert = try await Self.nextChange(reader)
            #expect(insert["operationType"] == "insert")
            #expect(insert["ns"] == ["db": "shop", "coll": "books"])
            #expect(insert["documentKey"] == ["_id": .int32(1)])
            #expect(insert["fullDocument"] == ["_id": .int32(1), "title": "Dune", "note": "100%0A sure"])
            #expect(insert["_id"]?.documentValue?["_data"]?.stringValue != nil)

            let update = try await Self.nextChange(reader)
            #expect(update["operationType"] == "update")
            #expect(update["updateDescription"]?.documentValue?["updatedFields"] == ["pages": .int32(412)])
            #expect(update["fullDocument"] == ["_id": .int32(1), "title": "Dune", "note": "100%0A sure", "pages": 412])

            let replace = try await Self.nextChange(reader)
            #expect(replace["operationType"] == "replace")
            #expect(replace["fullDocument"] == ["_id": .int32(1), "title": "Emma"])

            let delete = try await Self.nextChange(reader)
            #expect(delete["operationType"] == "delete")
            #expect(delete["documentKey"] == ["_id": .int32(1)])
            #expect(delete["fullDocument"] == nil)
            reader.stop()
        }
    }

    @Test func idsAndFilterKeepOnlyTheirEvents() async throws {
        try await Self.withApp { served, login in
            let byId = try await Self.open(served, #", "ids": [2, 3]"#, token: login.accessToken)
            let inserts = try await Self.open(
                served, #", "filter": {"operationType": "insert"}"#, token: login.accessToken)
            let byTitle = try await Self.open(
                served, #", "filter": {"fullDocument.title": "Emma"}"#, token: login.accessToken)
            func atlas(_ action: String, _ argument: String) async throws {
                _ = try await served.atlas(action, "{\(Self.namespace), \(argument)}", token: login.accessToken)
            }
            try await atlas("insertOne", #""document": {"_id": 1, "title": "Dune"}"#)
            try await atlas("updateOne", #""query": {"_id": 1}, "update": {"$set": {"title": "Emma"}}"#)
            try await atlas("insertOne", #""document": {"_id": 2, "title": "Ulysses"}"#)
            try await atlas("deleteOne", #""query": {"_id": 2}"#)

            let first = try await Self.nextChange(byId)
            #expect(first["operationType"] == "insert")
            #expect(first["documentKey"] == ["_id": .int32(2)])
            #expect(try await Self.nextChange(byId)["operationType"] == "delete")

            #expect(try await Self.nextChange(inserts)["documentKey"] == ["_id": .int32(1)])
            #expect(try await Self.nextChange(inserts)["documentKey"] == ["_id": .int32(2)])

            let emma = try await Self.nextChange(byTitle)
            #expect(emma["operationType"] == "update")
            #expect(emma["documentKey"] == ["_id": .int32(1)])
            for reader in [byId, inserts, byTitle] { reader.stop() }
        }
    }

    @Test func anIdleStreamSendsKeepAlivesAndStillDelivers() async throws {
        try await Self.withApp(keepAlive: .milliseconds(100)) { served, login in
            let reader = try await Self.open(served, token: login.accessToken, comments: true)
            #expect(await reader.next("comment")?.data == "keep-alive")
            #expect(await reader.next("comment")?.data == "keep-alive")
            _ = try await served.atlas(
                "insertOne", #"{\#(Self.namespace), "document": {"_id": 7}}"#, token: login.accessToken)
            #expect(try await Self.nextChange(reader)["documentKey"] == ["_id": .int32(7)])
            reader.stop()
        }
    }

    @Test func loggingOutEndsTheStreamWithTheSDKsErrorEvent() async throws {
        try await Self.withApp { served, login in
            let reader = try await Self.open(served, token: login.accessToken)
            #expect(reader.status == 200)
            let loggedOut = try await served.delete("\(served.base)/auth/session", token: login.refreshToken)
            #expect(loggedOut.status == 204)
            let error = try #require(await reader.next("error"))
            let body = try ExtendedJSON.parseDocument(error.data)
            #expect(body["error_code"] == "InvalidSession")
            #expect(body["error"]?.stringValue?.contains("session has ended") == true)
            for await _ in reader.events {}  // and the server closes the stream
        }
    }

    @Test func deletingTheUserEndsTheirStreamsOnly() async throws {
        try await Self.withApp { served, login in
            let other = try await served.loginAnonymously()
            let theirs = try await Self.open(served, token: login.accessToken)
            let others = try await Self.open(served, token: other.accessToken)
            #expect(try await served.delete("\(served.base)/auth/delete", token: login.accessToken).status == 204)
            let error = try #require(await theirs.next("error"))
            #expect(try ExtendedJSON.parseDocument(error.data)["error_code"] == "InvalidSession")
            _ = try await served.atlas(
                "insertOne", #"{\#(Self.namespace), "document": {"_id": 1}}"#, token: other.accessToken)
            #expect(try await Self.nextChange(others)["operationType"] == "insert")
            others.stop()
        }
    }

    @Test func stoppingTheServerEndsOpenStreams() async throws {
        try await Self.withApp { served, login in
            let reader = try await Self.open(served, token: login.accessToken)
            #expect(reader.status == 200)
            await served.server.stop()
            for await _ in reader.events {}  // the stream ended rather than holding the stop up
        }
    }

    /// A stream carries what the watching user's rules let them read: another user's documents stay out, fields
    /// the role does not read are left out, and a collection without rules is refused as a call to it is.
    @Test func aStreamCarriesOnlyWhatTheUsersRulesLetThemRead() async throws {
        var definition = try AppDefinition.parse(
            """
            rules:
              collections:
                - database: shop
                  collection: books
                  roles:
                    - name: owner
                      apply_when: {}
                      document_filters: {read: {owner: "%%user.id"}, write: {owner: "%%user.id"}}
                      fields: {owner: {read: true, write: true}, title: {read: true, write: true}}
                      insert: true
                      delete: true
            """)
        definition.appId = nil
        try await ServedApp.with(FunctionRegistry(), definition: definition) { served in
            let alice = try await served.loginAnonymously()
            let bob = try await served.loginAnonymously()
            let reader = try await Self.open(served, token: alice.accessToken)
            #expect(reader.status == 200)
            func insert(_ id: Int, owner: ServedApp.Login) async throws {
                let document = #"{"_id": \#(id), "owner": "\#(owner.userId)", "title": "T\#(id)"}"#
                _ = try await served.atlas(
                    "insertOne", "{\(Self.namespace), \"document\": \(document)}", token: owner.accessToken)
            }
            try await insert(1, owner: bob)
            try await insert(2, owner: alice)
            // Written by the system, with a field no role lets a client read.
            _ = try await served.app.store.database("shop").collection("books").insertOne([
                "_id": 3, "owner": .string(alice.userId), "title": "T3", "cost": 4,
            ])
            let own = try await Self.nextChange(reader)
            #expect(own["documentKey"] == ["_id": .int32(2)])
            #expect(own["fullDocument"] == ["_id": .int32(2), "owner": .string(alice.userId), "title": "T2"])
            let redacted = try await Self.nextChange(reader)
            #expect(redacted["fullDocument"] == ["_id": .int32(3), "owner": .string(alice.userId), "title": "T3"])
            reader.stop()

            let unruled = try await served.get(
                served.server.http.baseURL
                    + Self.watchPath(
                        namespace: #""database": "shop", "collection": "ledger""#, token: alice.accessToken))
            #expect(unruled.status == 403)
            #expect(unruled.errorCode == "NoMatchingRuleFound")
        }
    }

    @Test func refusesWithoutAValidTokenOrForAnotherAppOrCall() async throws {
        try await Self.withApp { served, login in
            let url = served.server.http.baseURL
            let noToken = try await served.get(url + Self.watchPath(token: nil))
            #expect(noToken.status == 401)
            #expect(noToken.errorCode == "InvalidSession")
            let forged = try await served.get(url + Self.watchPath(token: "not.a.token"))
            #expect(forged.errorCode == "InvalidSession")
            let otherApp = try await served.get(url + Self.watchPath(token: login.accessToken, app: "other-app"))
            #expect(otherApp.status == 404)
            #expect(otherApp.errorCode == "AppNotFound")
            let byHeader = try await LiveEventReader.open(
                port: served.server.http.port, path: Self.watchPath(token: nil), token: login.accessToken)
            #expect(byHeader.status == 200)
            byHeader.stop()

            let reserved = try await served.get(
                url
                    + Self.watchPath(
                        namespace: #""database": "local", "collection": "switchyard_sessions""#,
                        token: login.accessToken))
            #expect(reserved.status == 403)
            #expect(reserved.errorCode == "PermissionDenied")
            let notStreamed = try await served.get(url + Self.watchPath(name: "find", token: login.accessToken))
            #expect(notStreamed.status == 404)
            #expect(notStreamed.errorCode == "FunctionNotFound")
            // "not json", in base64
            let garbled = try await served.get(
                "\(served.appBase)/functions/call?baas_request=bm90IGpzb24&baas_at=\(login.accessToken)")
            #expect(garbled.status == 400)
            #expect(garbled.errorCode == "InvalidParameter")
        }
    }
}
