import Foundation

/// Mutated requests for the HTTP surfaces a served app offers: the client API, the admin API and the FCM
/// emulator. Each request starts from a valid seed (a login, a function call, a `mongodb-atlas` call, an admin
/// route with the admin token, an FCM send, batch or token request) and changes its method, path, headers or
/// body a few times. The framing stays valid (a correct `Content-Length`, `Connection: close`): a request whose
/// length lies would leave the server rightly waiting for bytes that never come.
struct HTTPSurfaceFuzzer {
    struct Seed {
        var method: String
        var path: String
        var headers: [(String, String)]
        var body: [UInt8]
    }

    /// A request as sent, kept to describe a finding.
    struct Request {
        var method: String
        var path: String
        var headers: [(String, String)]
        var body: [UInt8]

        var bytes: [UInt8] {
            var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
            for (name, value) in headers { head += "\(name): \(value)\r\n" }
            head += "Content-Length: \(body.count)\r\n\r\n"
            return Array(head.utf8) + body
        }

        var summary: String {
            let text = String(decoding: body.prefix(300), as: UTF8.self)
            return "\(method) \(path) \(headers.map { "\($0.0): \($0.1.prefix(40))" }) body(\(body.count)): \(text)"
        }
    }

    let seeds: [Seed]
    var random: SplitMix64

    /// The seeds for an app served as `appId`, with an access token of a logged-in user and the admin token.
    static func seeds(appId: String, accessToken: String, adminToken: String) -> [Seed] {
        let json = ("Content-Type", "application/json")
        let user = ("Authorization", "Bearer \(accessToken)")
        let admin = ("Authorization", "Bearer \(adminToken)")
        let owner = ("Authorization", "Bearer owner")
        let app = "/api/client/v2.0/app/\(appId)"
        func seed(_ method: String, _ path: String, _ headers: [(String, String)], _ body: String = "") -> Seed {
            Seed(method: method, path: path, headers: headers, body: Array(body.utf8))
        }
        let namespace = #""database": "product", "collection": "book""#
        return [
            seed("GET", "\(app)/location", []),
            seed("POST", "\(app)/auth/providers/anon-user/login", [json], #"{"provider": "anon-user"}"#),
            seed(
                "POST", "\(app)/auth/providers/local-userpass/register", [json],
                #"{"email": "reader@example.com", "password": "correct horse"}"#),
            seed(
                "POST", "\(app)/auth/providers/local-userpass/login", [json],
                #"{"username": "reader@example.com", "password": "correct horse", "options": {"device": {"sdk": "swift"}}}"#
            ),
            seed("GET", "/api/client/v2.0/auth/profile", [user]),
            seed("POST", "/api/client/v2.0/auth/session", [user]),
            seed(
                "POST", "\(app)/functions/call", [json, user],
                #"{"name": "updateFCMUserToken", "arguments": [{"token": "fuzz-device", "platform": "ios"}]}"#),
            seed("POST", "\(app)/functions/call", [json, user], #"{"name": "ping", "arguments": []}"#),
            seed(
                "POST", "\(app)/functions/call", [json, user],
                #"{"name": "find", "service": "mongodb-atlas", "arguments": [{\#(namespace), "query": {"title": {"$regex": "^S"}}, "limit": {"$numberInt": "5"}}]}"#
            ),
            seed(
                "POST", "\(app)/functions/call", [json, user],
                #"{"name": "aggregate", "service": "mongodb-atlas", "arguments": [{\#(namespace), "pipeline": [{"$match": {}}, {"$group": {"_id": "$author", "n": {"$sum": 1}}}]}]}"#
            ),
            seed(
                "POST", "\(app)/functions/call", [json, user],
                #"{"name": "updateOne", "service": "mongodb-atlas", "arguments": [{\#(namespace), "query": {"_id": {"$oid": "650000000000000000000001"}}, "update": {"$set": {"rating": {"$numberInt": "4"}}}}]}"#
            ),
            seed("GET", "/admin/v1/app", [admin]),
            seed("GET", "/admin/v1/triggers", [admin]),
            seed("GET", "/admin/v1/triggers/onBookPushNotification", [admin]),
            seed("GET", "/admin/v1/invocations?limit=5", [admin]),
            seed("GET", "/admin/v1/outbox?limit=5", [admin]),
            seed("GET", "/admin/v1/users", [admin]),
            seed("GET", "/admin/v1/devices", [admin]),
            seed("GET", "/admin/v1/topics", [admin]),
            seed("GET", "/admin/v1/databases", [admin]),
            seed("GET", "/admin/v1/databases/product/collections/book/documents?filter=%7B%7D&limit=3", [admin]),
            seed(
                "POST", "/admin/v1/databases/fuzz/collections/notes/documents", [json, admin],
                #"{"_id": {"$numberInt": "1"}, "text": "note"}"#),
            seed(
                "POST", "/admin/v1/databases/fuzz/collections/notes/update", [json, admin],
                #"{"filter": {}, "update": {"$set": {"text": "changed"}}}"#),
            seed("POST", "/admin/v1/databases/fuzz/collections/notes/delete", [json, admin], #"{"filter": {}}"#),
            seed("GET", "/admin/v1/deadLetters", [admin]),
            seed("PUT", "/admin/v1/devices/fuzz-device", [json, admin], #"{"topics": ["books"]}"#),
            seed(
                "POST", "/v1/projects/books-app/messages:send", [json, owner],
                #"{"message": {"token": "fuzz-device", "notification": {"title": "t", "body": "b"}, "data": {"k": "v"}}}"#
            ),
            seed(
                "POST", "/v1/projects/books-app/messages:send", [json, owner],
                #"{"validate_only": true, "message": {"topic": "books", "apns": {"payload": {"aps": {"badge": 1}}}}}"#
            ),
            seed(
                "POST", "/iid/v1:batchAdd", [json, owner],
                #"{"to": "/topics/books", "registration_tokens": ["fuzz-device"]}"#),
            seed(
                "POST", "/iid/v1:batchRemove", [json, owner],
                #"{"to": "/topics/books", "registration_tokens": ["fuzz-device"]}"#),
            seed("POST", "/iid/v1/fuzz-device/rel/topics/books", [owner]),
            seed(
                "POST", "/oauth2/token", [("Content-Type", "application/x-www-form-urlencoded")],
                "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=a.b.c"),
            seed(
                "PUT", "/emulator/v1/projects/books-app/devices/fuzz-device", [json, owner], #"{"platform": "android"}"#
            ),
        ]
    }

    init(seeds: [Seed], seed: UInt64) {
        self.seeds = seeds
        random = SplitMix64(seed: seed)
    }

    mutating func next() -> Request {
        let seed = seeds[Int(random.next() % UInt64(seeds.count))]
        var request = Request(method: seed.method, path: seed.path, headers: seed.headers, body: seed.body)
        for _ in 0..<(1 + Int(random.next() % 3)) { mutate(&request) }
        return request
    }

    private static let methods = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "TRACE", "FOO", "get"]
    private static let pathPieces = [
        "/", "//", "/..", "%2e%2e", "%00", "%", "%zz", "?", "?a=1&a=2", "?limit=-1", "?limit=99999999999999999999",
        "?filter=%7B%22%24where%22%3A1%7D", "?filter=%7B", "#x", ";", "/events", "/%F0%9F%93%9A", "~", "{app}",
        String(repeating: "a", count: 3000),
    ]
    private static let bodyPieces = [
        "{", "}", "[", "]", "\"", "\\", ":", ",", "null", "true", "-0", "1e999", "18446744073709551616",
        #"{"$numberLong": "x"}"#, #"{"$oid": "zz"}"#, #"{"$date": "never"}"#, #"{"$binary": {"base64": "*"}}"#,
        #"{"$regex": "(a+)+$"}"#, #"{"$where": "1"}"#, #"{"$gt": {}}"#, #"{"$in": [1, 2]}"#,
        #"{"$expr": {"$add": []}}"#,
        "\u{0}", "\u{FFFD}", "é", String(repeating: "[", count: 2000), String(repeating: "{\"a\":", count: 500),
    ]
    private static let headerPieces: [(String, String)] = [
        ("Authorization", "Bearer "), ("Authorization", "Bearer a.b.c"), ("Authorization", "Basic Og=="),
        ("Content-Type", "text/plain"), ("Content-Type", "application/json; charset=utf-16"),
        ("Content-Type", "multipart/form-data; boundary=x"), ("Accept", "text/event-stream"),
        ("Origin", "http://evil.example"), ("X-Forwarded-For", "1.2.3.4"),
        ("Cookie", String(repeating: "c", count: 4000)),
        ("Transfer-Encoding", "identity"), ("Expect", "100-continue"),
    ]

    private mutating func pick<T>(_ items: [T]) -> T { items[Int(random.next() % UInt64(items.count))] }

    private mutating func mutate(_ request: inout Request) {
        switch random.next() % 10 {
        case 0: request.method = pick(Self.methods)
        case 1: request.path += pick(Self.pathPieces)
        case 2:
            var path = Array(request.path.utf8)
            if !path.isEmpty { path.removeSubrange(Int(random.next() % UInt64(path.count))...) }
            let kept = String(decoding: path, as: UTF8.self).filter { $0 != " " && $0 != "\r" && $0 != "\n" }
            request.path = kept.hasPrefix("/") ? kept : "/" + kept
        case 3:
            if !request.headers.isEmpty {
                request.headers.remove(at: Int(random.next() % UInt64(request.headers.count)))
            }
        case 4: request.headers.append(pick(Self.headerPieces))
        case 5: insert(Array(pick(Self.bodyPieces).utf8), into: &request.body)
        case 6:
            if !request.body.isEmpty {
                let at = Int(random.next() % UInt64(request.body.count))
                request.body[at] ^= UInt8(truncatingIfNeeded: 1 << (random.next() % 8))
            }
        case 7:
            if !request.body.isEmpty { request.body.removeSubrange(Int(random.next() % UInt64(request.body.count))...) }
        case 8:
            // A seed's body under another seed's route: well-formed JSON that means something else here.
            let other = pick(seeds)
            request.body = other.body
        default:
            let piece = pick(Self.bodyPieces)
            let times = 1 + Int(random.next() % 64)
            insert(Array(String(repeating: piece, count: times).utf8), into: &request.body)
        }
    }

    private mutating func insert(_ bytes: [UInt8], into body: inout [UInt8]) {
        let at = body.isEmpty ? 0 : Int(random.next() % UInt64(body.count + 1))
        body.insert(contentsOf: bytes, at: at)
    }
}

/// A small seeded generator, so a run's seed replays its requests exactly (`SWITCHYARD_FUZZ_SEED`).
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D4_9BB4_9133_11EB
        return z ^ (z >> 31)
    }
}
