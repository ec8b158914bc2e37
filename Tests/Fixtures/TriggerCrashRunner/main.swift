// A child process for the trigger reliability test: runs four triggers over a SQLite store while
// writing to it, until killed. Each trigger's handler appends `<sequence> <_id> .` for every event it is
// given to `<log-directory>/<trigger>.log` (fsynced before the handler returns), after a `start .` line
// per run, so the test can tell the runs apart.
//
//   trigger-crash-runner <data-directory> <log-directory> <round> write   prints `ack <_id>` per write
//   trigger-crash-runner <data-directory> <log-directory> <round> drain   prints `idle`, then exits
import BSON
import DocumentStore
import Foundation
import Switchyard
import Synchronization

let arguments = CommandLine.arguments
guard arguments.count == 5, ["write", "drain"].contains(arguments[4]) else {
    FileHandle.standardError.write(
        Data("usage: trigger-crash-runner <data-directory> <log-directory> <round> write|drain\n".utf8))
    exit(2)
}
let (directory, logDirectory, round, mode) = (arguments[1], arguments[2], arguments[3], arguments[4])

/// An append-only file written with one `write(2)` per line and fsynced.
final class DeliveryFile: Sendable {
    let descriptor: Int32
    let lock = Mutex(())

    init(path: String) {
        descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        guard descriptor >= 0 else {
            FileHandle.standardError.write(Data("trigger-crash-runner: cannot open \(path)\n".utf8))
            exit(1)
        }
        // A run killed mid-line leaves no newline: start on a fresh line.
        if let contents = FileManager.default.contents(atPath: path), let last = contents.last, last != 0x0A {
            append("")
        }
    }

    func append(_ line: String) {
        lock.withLock { _ in
            let bytes = Array((line + "\n").utf8)
            _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            _ = fsync(descriptor)
        }
    }
}

let items = WatchScope.collection(database: "crash", collection: "items")
let retry = RetryPolicy(maxAttempts: 3, initialBackoff: .milliseconds(1), maxBackoff: .milliseconds(5))
let definitions = [
    TriggerDefinition(
        name: "ordered", function: "record",
        kind: .database(DatabaseTrigger(scope: items, operations: [.insert, .update], retry: retry))),
    TriggerDefinition(
        name: "unordered", function: "record",
        kind: .database(
            DatabaseTrigger(
                scope: items, operations: [.insert], delivery: .unordered(maxConcurrency: 4), retry: retry))),
    TriggerDefinition(
        name: "evens", function: "record",
        kind: .database(
            DatabaseTrigger(scope: items, operations: [.insert], match: ["fullDocument.even": true], retry: retry))),
    TriggerDefinition(
        name: "perDocument", function: "record",
        kind: .database(
            DatabaseTrigger(
                scope: items, operations: [.insert, .update], delivery: .byDocumentKey(maxConcurrency: 4),
                retry: retry))),
]
var files: [String: DeliveryFile] = [:]
for definition in definitions {
    let file = DeliveryFile(path: "\(logDirectory)/\(definition.name).log")
    file.append("start .")
    files[definition.name] = file
}
let deliveryFiles = files

do {
    let store = try await DocumentStore.open(.sqlite(directory: directory))
    let runtime = TriggerRuntime(store: store, definitions: definitions) { invocation in
        guard case .database(let event) = invocation.input, let id = event.documentKey?["_id"]?.stringValue else {
            return
        }
        // A function that takes a moment, so that kills land while deliveries are in flight.
        try await Task.sleep(for: .milliseconds(3))
        deliveryFiles[invocation.trigger.name]?.append("\(event.id.sequence) \(id) .")
    }
    try await runtime.start()
    // Caught up and its starting token saved before the first write, so no write precedes a trigger.
    try await runtime.awaitIdle()
    if mode == "drain" {
        await runtime.stop()
        await store.close()
        print("idle")
        exit(0)
    }
    let collection = store.database("crash").collection("items")
    for i in 0... {
        let id = "r\(round)-\(i)"
        try await collection.insertOne(["_id": .string(id), "even": .bool(i % 2 == 0)])
        FileHandle.standardOutput.write(Data("ack \(id)\n".utf8))
        if i % 3 == 2 {
            let earlier = "r\(round)-\(i - 1)"
            try await collection.updateOne(["_id": .string(earlier)], ["$set": ["touched": true]])
            FileHandle.standardOutput.write(Data("ack \(earlier)\n".utf8))
        }
    }
} catch {
    FileHandle.standardError.write(Data("trigger-crash-runner: \(error)\n".utf8))
    exit(1)
}
