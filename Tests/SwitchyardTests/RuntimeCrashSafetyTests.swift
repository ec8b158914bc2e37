import BSON
import DocumentStore
import Foundation
import Messaging
import TestSupport
import Testing

/// Kills a child process running triggers over a stream of writes with SIGKILL, several times, then
/// lets it catch up and checks that every committed change reached every trigger it matches, at least
/// once, in commit order for the ordered ones, and in commit order per document for the `byDocumentKey` one.
@Suite struct RuntimeCrashSafetyTests {
    static var runnerPath: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("trigger-crash-runner").path
    }

    /// Runs the child until it printed `lines` lines (or exited), then kills it; returns what it printed.
    static func run(_ arguments: [String], killAfter lines: Int?) throws -> [String] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: runnerPath)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        var buffer = Data()
        var printed: [String] = []
        let reader = output.fileHandleForReading
        while lines.map({ printed.count < $0 }) ?? true {
            let chunk = reader.readAvailable()
            if chunk.isEmpty { break }  // exited
            buffer.append(chunk)
            while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                printed.append(String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self))
                buffer.removeSubrange(buffer.startIndex...newline)
            }
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitForExit()
        return printed
    }

    /// A trigger's delivery log: one list of sequences per run of the child.
    static func runs(_ path: String) -> [[Int64]] {
        let text = FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) } ?? ""
        var runs: [[Int64]] = []
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ")
            if fields == ["start", "."] {
                runs.append([])
            } else if fields.count == 3, fields[2] == ".", let sequence = Int64(fields[0]), !runs.isEmpty {
                runs[runs.count - 1].append(sequence)
            }
        }
        return runs
    }

    @Test func everyCommittedChangeReachesEveryMatchingTriggerDespiteSIGKILL() async throws {
        #expect(FileManager.default.isExecutableFile(atPath: Self.runnerPath), "build trigger-crash-runner first")
        let directory = try TemporaryDirectory()
        let data = directory.path + "/data"
        var acknowledged = Set<String>()
        let rounds = 4
        for round in 1...rounds {
            let lines = try Self.run([data, directory.path, String(round), "write"], killAfter: 120 + round * 23)
            #expect(lines.count >= 120, "the runner stopped early: \(lines.suffix(3))")
            acknowledged.formUnion(lines.compactMap { $0.hasPrefix("ack ") ? String($0.dropFirst(4)) : nil })
        }
        let drained = try Self.run([data, directory.path, String(rounds + 1), "drain"], killAfter: nil)
        #expect(drained == ["idle"])

        // What each trigger should have seen, from the change log itself.
        let store = try await DocumentStore.open(.sqlite(directory: data))
        let end = try await store.watch().startingPoint.sequence
        var events: [ChangeEvent] = []
        if end > 0 {
            let stream = try await store.watch(options: ChangeStreamOptions(resumeAfter: ResumeToken(sequence: 0)))
            for try await event in stream {
                events.append(event)
                if event.id.sequence >= end { break }
            }
        }
        let ids = Set(
            try await store.database("crash").collection("items").find().toArray().compactMap { $0["_id"]?.stringValue }
        )
        await store.close()
        #expect(acknowledged.isSubset(of: ids))
        let inserts = events.filter { $0.operationType == .insert }
        let expected: [String: [Int64]] = [
            "ordered": events.filter { [.insert, .update].contains($0.operationType) }.map(\.id.sequence),
            "unordered": inserts.map(\.id.sequence),
            "evens": inserts.filter { $0.fullDocument?["even"] == .bool(true) }.map(\.id.sequence),
            "perDocument": events.filter { [.insert, .update].contains($0.operationType) }.map(\.id.sequence),
        ]
        #expect(expected["ordered"]!.count >= 300)

        for (trigger, sequences) in expected {
            let runs = Self.runs("\(directory.path)/\(trigger).log")
            #expect(runs.count == rounds + 1, "\(trigger): one log run per start of the runner")
            let delivered = runs.flatMap { $0 }
            #expect(Set(sequences).subtracting(delivered).sorted() == [], "\(trigger) missed events")
            #expect(Set(delivered).subtracting(sequences).sorted() == [], "\(trigger) got events it does not match")
            if trigger == "perDocument" {
                Self.expectPerDocumentOrder(runs, of: events)
            } else if trigger != "unordered" {
                // In order within each run, and a restart never skips ahead: first deliveries are in commit order.
                for run in runs { #expect(zip(run, run.dropFirst()).allSatisfy { $0 < $1 }, "\(trigger) out of order") }
                var seen = Set<Int64>()
                let firsts = delivered.filter { seen.insert($0).inserted }
                let departure = Array(zip(firsts, sequences)).firstIndex { $0 != $1 }
                #expect(
                    departure == nil && firsts.count == sequences.count,
                    "\(trigger): first deliveries leave commit order at position \(departure ?? firsts.count)")
            }
        }
    }

    /// Each run delivers a document's events in commit order, and a restart never skips ahead within a document:
    /// each document's first deliveries are its events in commit order.
    static func expectPerDocumentOrder(_ runs: [[Int64]], of events: [ChangeEvent]) {
        var documents: [Int64: String] = [:]
        var committed: [String: [Int64]] = [:]
        for event in events where [.insert, .update].contains(event.operationType) {
            let id = event.documentKey?["_id"]?.stringValue ?? ""
            documents[event.id.sequence] = id
            committed[id, default: []].append(event.id.sequence)
        }
        var firsts: [String: [Int64]] = [:]
        var seen = Set<Int64>()
        for run in runs {
            var inRun: [String: [Int64]] = [:]
            for sequence in run {
                let id = documents[sequence] ?? ""
                inRun[id, default: []].append(sequence)
                if seen.insert(sequence).inserted { firsts[id, default: []].append(sequence) }
            }
            for (id, sequences) in inRun {
                #expect(zip(sequences, sequences.dropFirst()).allSatisfy { $0 < $1 }, "perDocument: \(id) out of order")
            }
        }
        for (id, sequences) in committed {
            #expect(firsts[id] == sequences, "perDocument: \(id)'s first deliveries leave commit order")
        }
        // Documents ran in parallel: in some run, a document's event was delivered before an earlier one of another.
        #expect(runs.contains { zip($0, $0.dropFirst()).contains { $0 > $1 } }, "perDocument never ran in parallel")
    }
}
