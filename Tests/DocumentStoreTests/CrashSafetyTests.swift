import BSON
import Foundation
import Messaging
import TestSupport
import Testing

@testable import DocumentStore

/// Kills a writing child process with SIGKILL and checks that the store it leaves behind holds every
/// acknowledged write, each with exactly one change event, no partial insertMany, and a change log
/// without gaps.
@Suite struct CrashSafetyTests {
    static var writerPath: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("store-crash-writer").path
    }

    /// Runs the writer until it has acknowledged at least `acknowledgements` writes, then kills it.
    static func runAndKill(directory: String, round: Int, acknowledgements: Int) throws -> [String] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: writerPath)
        process.arguments = [directory, String(round)]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        var buffer = Data()
        var lines: [String] = []
        let reader = output.fileHandleForReading
        while lines.count < acknowledgements {
            let chunk = reader.readAvailable()
            if chunk.isEmpty { break }  // the writer exited on its own
            buffer.append(chunk)
            while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                lines.append(String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self))
                buffer.removeSubrange(buffer.startIndex...newline)
            }
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitForExit()
        return lines
    }

    @Test func acknowledgedWritesSurviveSIGKILL() async throws {
        #expect(FileManager.default.isExecutableFile(atPath: Self.writerPath), "build store-crash-writer first")
        let directory = TemporaryDirectory()
        let data = directory.path + "/data"
        var acknowledgedOnes = Set<String>()
        var acknowledgedMany = Set<String>()
        for round in 1...3 {
            let lines = try Self.runAndKill(directory: data, round: round, acknowledgements: 300 + round * 37)
            #expect(lines.count >= 300, "the writer stopped early: \(lines.suffix(3))")
            for line in lines {
                let parts = line.split(separator: " ", maxSplits: 1).map(String.init)
                guard parts.count == 2 else { continue }
                if parts[0] == "one" { acknowledgedOnes.insert(parts[1]) } else { acknowledgedMany.insert(parts[1]) }
            }

            let store = try await DocumentStore.open(.sqlite(directory: data))
            let documents = try await store.database("crash").collection("items").find().toArray()
            let ids = Set(documents.compactMap { $0["_id"]?.stringValue })
            #expect(acknowledgedOnes.isSubset(of: ids))
            for prefix in acknowledgedMany {
                #expect(["a", "b", "c"].allSatisfy { ids.contains("\(prefix)-\($0)") }, "missing part of \(prefix)")
            }
            // All or nothing, acknowledged or not: an insertMany's documents are there together or not at all.
            let manyPrefixes = Set(ids.filter { $0.filter { $0 == "-" }.count == 3 }.map { String($0.dropLast(2)) })
            for prefix in manyPrefixes {
                #expect(["a", "b", "c"].allSatisfy { ids.contains("\(prefix)-\($0)") }, "partial insertMany \(prefix)")
            }

            let records = try await store.worker.read { core throws(StoreError) in
                try core.engine.changes(after: 0, limit: 1_000_000)
            }
            let sequences = records.map(\.sequence)
            #expect(sequences.first == 1)
            #expect(zip(sequences, sequences.dropFirst()).allSatisfy { $1 == $0 + 1 }, "gap in the change log")
            var eventsPerId: [String: Int] = [:]
            for record in records {
                let event = try DocumentEncoding.decode(record.event)
                if let id = event["documentKey"]?.documentValue?["_id"]?.stringValue {
                    eventsPerId[id, default: 0] += 1
                }
            }
            #expect(eventsPerId.count == ids.count && eventsPerId.values.allSatisfy { $0 == 1 })
            #expect(Set(eventsPerId.keys) == ids)
            await store.close()
        }
    }
}
