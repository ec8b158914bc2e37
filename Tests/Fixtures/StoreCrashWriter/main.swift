// A child process for the crash-safety test: writes to a SQLite store from several tasks and prints
// each acknowledged write to stdout, one line per write, until it is killed.
//
//   store-crash-writer <data-directory> <round>
//
// Lines: `one <_id>` after an acknowledged insertOne, `many <_id prefix>` after an acknowledged
// insertMany of `<prefix>-a`, `<prefix>-b`, `<prefix>-c`.
import BSON
import DocumentStore
import Foundation

let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    FileHandle.standardError.write(Data("usage: store-crash-writer <data-directory> <round>\n".utf8))
    exit(2)
}
let directory = arguments[1]
let round = arguments[2]

/// One `write(2)` per line, so lines from concurrent tasks never interleave.
func acknowledge(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

do {
    let store = try await DocumentStore.open(.sqlite(directory: directory))
    let items = store.database("crash").collection("items")
    try await withThrowingTaskGroup(of: Void.self) { group in
        for writer in 0..<8 {
            group.addTask {
                let padding = String(repeating: "x", count: 200)
                for i in 0... {
                    let id = "r\(round)-w\(writer)-\(i)"
                    if i % 2 == 0 {
                        try await items.insertOne([
                            "_id": .string(id), "writer": .int32(Int32(writer)), "pad": .string(padding),
                        ])
                        acknowledge("one \(id)")
                    } else {
                        try await items.insertMany(
                            ["a", "b", "c"].map { ["_id": .string("\(id)-\($0)"), "pad": .string(padding)] })
                        acknowledge("many \(id)")
                    }
                }
            }
        }
        try await group.waitForAll()
    }
} catch {
    FileHandle.standardError.write(Data("store-crash-writer: \(error)\n".utf8))
    exit(1)
}
