import BSON
import Foundation

/// Extended JSON read + canonical print of a ~10 MB corpus of books and users (nested `volumeInfo`, FCM token
/// arrays, dates, ObjectIds, every number type), against Foundation's JSONSerialization reading and writing
/// the same bytes.
enum ExtendedJSONBenchmark {
    static let benchmark = Benchmark(
        name: "ejson", summary: "Extended JSON parse + canonical print vs JSONSerialization", run: run)

    static func run() throws {
        let corpus = makeCorpus(targetBytes: 10_000_000)
        let data = Data(corpus)
        let megabytes = Double(corpus.count) / 1_000_000
        print("ejson corpus: \(String(format: "%.1f", megabytes)) MB canonical Extended JSON")

        var documentCount = 0
        var printedBytes = 0
        let ours = try Timing.best(of: 3) {
            let documents = try ExtendedJSON.parseDocuments(corpus)
            var output: [UInt8] = []
            output.reserveCapacity(corpus.count)
            output.append(UInt8(ascii: "["))
            for (i, document) in documents.enumerated() {
                if i > 0 { output.append(UInt8(ascii: ",")) }
                document.appendExtendedJSON(to: &output, mode: .canonical)
            }
            output.append(UInt8(ascii: "]"))
            documentCount = documents.count
            printedBytes = output.count
        }
        guard printedBytes == corpus.count else {
            throw BenchmarkFailure("re-printed \(printedBytes) bytes, expected \(corpus.count)")
        }
        let oursParse = try Timing.best(of: 3) { _ = try ExtendedJSON.parseDocuments(corpus) }
        let documents = try ExtendedJSON.parseDocuments(corpus)
        let oursPrint = Timing.best(of: 3) {
            var output: [UInt8] = []
            output.reserveCapacity(corpus.count)
            for document in documents { document.appendExtendedJSON(to: &output, mode: .canonical) }
        }

        let foundation = try Timing.best(of: 3) {
            let object = try JSONSerialization.jsonObject(with: data)
            _ = try JSONSerialization.data(withJSONObject: object)
        }
        let foundationParse = try Timing.best(of: 3) { _ = try JSONSerialization.jsonObject(with: data) }
        let object = try JSONSerialization.jsonObject(with: data)
        let foundationPrint = try Timing.best(of: 3) { _ = try JSONSerialization.data(withJSONObject: object) }

        func rate(_ d: Duration) -> String { String(format: "%6.1f MB/s", Timing.megabytesPerSecond(corpus.count, d)) }
        print("  \(documentCount) documents, best of 3")
        print("  parse only:   ejson \(rate(oursParse))   JSONSerialization \(rate(foundationParse))")
        print("  print only:   ejson \(rate(oursPrint))   JSONSerialization \(rate(foundationPrint))")
        let ratio = Timing.seconds(foundation) / Timing.seconds(ours)
        print(
            "ejson parse+print canonical: \(rate(ours))   JSONSerialization: \(rate(foundation))   "
                + "ratio \(String(format: "%.1f", ratio))x (goal >= 2x)")
    }

    /// A JSON array of documents shaped like the example app's data, printed as canonical Extended JSON.
    static func makeCorpus(targetBytes: Int) -> [UInt8] {
        var random = SplitMix64(seed: 0x5317_C4A2)
        var output: [UInt8] = [UInt8(ascii: "[")]
        var i = 0
        while output.count < targetBytes {
            if i > 0 { output.append(UInt8(ascii: ",")) }
            let document = i % 3 == 2 ? user(i, &random) : book(i, &random)
            document.appendExtendedJSON(to: &output, mode: .canonical)
            i += 1
        }
        output.append(UInt8(ascii: "]"))
        return output
    }

    static let words = [
        "swift", "river", "garden", "silent", "winter", "machine", "harbour", "light", "paper", "orbit", "north",
        "stone", "music", "city", "glass", "forest", "signal", "ember", "atlas", "quiet", "thread", "copper",
    ]

    static func phrase(_ count: Int, _ random: inout SplitMix64) -> String {
        (0..<count).map { _ in words[random.next(below: words.count)] }.joined(separator: " ")
    }

    static func objectId(_ random: inout SplitMix64) -> BSON {
        .objectId(ObjectId(bytes: (0..<12).map { _ in UInt8(truncatingIfNeeded: random.next()) })!)
    }

    static func date(_ random: inout SplitMix64) -> BSON {
        .datetime(BSONDate(millisecondsSinceEpoch: 1_500_000_000_000 + Int64(random.next(below: 300_000_000_000))))
    }

    static func book(_ i: Int, _ random: inout SplitMix64) -> BSONDocument {
        let authors = (0..<(1 + random.next(below: 3))).map { _ in BSON.string(phrase(2, &random).capitalized) }
        return [
            "_id": objectId(&random),
            "kind": "book",
            "volumeInfo": [
                "title": .string(phrase(3 + random.next(below: 4), &random).capitalized),
                "authors": .array(authors),
                "publishedDate": .string(
                    "\(1950 + random.next(below: 74))-0\(1 + random.next(below: 9))-1\(random.next(below: 10))"),
                "imageLinks": [
                    "thumbnail": .string(
                        "http://books.google.com/books/content?id=\(random.next())&printsec=frontcover&img=1&zoom=1")
                ],
                "pageCount": .int32(Int32(50 + random.next(below: 900))),
                "averageRating": .double(Double(random.next(below: 50)) / 10),
                "language": "en",
            ],
            "addedAt": date(&random),
            "favouriteCount": .int64(Int64(random.next(below: 5_000_000_000))),
            "price": .double(Double(random.next(below: 100_000)) / 100),
            "tags": .array((0..<random.next(below: 4)).map { _ in .string(words[random.next(below: words.count)]) }),
            "available": .bool(random.next(below: 2) == 0),
        ]
    }

    static func user(_ i: Int, _ random: inout SplitMix64) -> BSONDocument {
        let token = { (random: inout SplitMix64) -> BSON in
            let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
            return .string(
                String(decoding: (0..<152).map { _ in alphabet[random.next(below: alphabet.count)] }, as: UTF8.self))
        }
        return [
            "_id": objectId(&random),
            "name": .string(phrase(2, &random).capitalized),
            "email": .string("user\(i)@example.com"),
            "fcmTokens": .array((0..<(1 + random.next(below: 3))).map { _ in token(&random) }),
            "favourites": .array((0..<random.next(below: 6)).map { _ in objectId(&random) }),
            "lastSeen": date(&random),
            "score": .double(Double(random.next()) / Double(UInt64.max) * 1000),
            "visits": .int32(Int32(random.next(below: 10_000))),
            "settings": ["notifications": .bool(true), "theme": "dark"],
        ]
    }
}

struct BenchmarkFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A small, fast, seedable generator so every run benchmarks the same corpus.
struct SplitMix64 {
    var state: UInt64
    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func next(below bound: Int) -> Int { Int(next() % UInt64(bound)) }
}
