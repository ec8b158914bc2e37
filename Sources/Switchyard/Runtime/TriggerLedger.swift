import BSON
import DocumentStore

/// The runtime's bookkeeping in the store: one state document per trigger (`triggerState`) and the
/// dead-letter queue (`deadLetters`), both in a database the store does not change-log.
struct TriggerLedger: Sendable {
    let states: DocumentCollection
    let deadLetterQueue: DocumentCollection

    init(store: DocumentStore, database: String) {
        states = store.database(database).collection("triggerState")
        deadLetterQueue = store.database(database).collection("deadLetters")
    }

    func loadStates() async throws -> [String: TriggerState] {
        var states: [String: TriggerState] = [:]
        for document in try await self.states.find().toArray() {
            if let state = TriggerState(document: document) { states[state.name] = state }
        }
        return states
    }

    func save(_ state: TriggerState) async throws {
        _ = try await states.replaceOne(["_id": .string(state.name)], state.document, upsert: true)
    }

    func deleteState(of name: String) async throws {
        _ = try await states.deleteOne(["_id": .string(name)])
    }

    func add(_ letter: DeadLetter) async throws {
        _ = try await deadLetterQueue.replaceOne(["_id": .objectId(letter.id)], letter.document, upsert: true)
    }

    func deadLetters(trigger: String?) async throws -> [DeadLetter] {
        let filter: BSONDocument = trigger.map { ["trigger": .string($0)] } ?? [:]
        return try await deadLetterQueue.find(filter, options: FindOptions(sort: ["_id": 1])).toArray().compactMap(
            DeadLetter.init(document:))
    }

    func deadLetter(_ id: ObjectId) async throws -> DeadLetter? {
        try await deadLetterQueue.findOne(["_id": .objectId(id)]).flatMap(DeadLetter.init(document:))
    }

    func removeDeadLetter(_ id: ObjectId) async throws {
        _ = try await deadLetterQueue.deleteOne(["_id": .objectId(id)])
    }
}
