import BSON
import DocumentStore
import Foundation
import Testing

@testable import Switchyard

@Suite struct TriggerProgressTests {
    static func event(_ sequence: Int64) -> ChangeEvent {
        ChangeEvent(
            document: ["_id": .document(ResumeToken(sequence: sequence).document), "operationType": "insert"],
            id: ResumeToken(sequence: sequence), operationType: .insert)
    }

    /// Events finishing back to back: each finish asks for a save, the writes are paced, and the state a
    /// restart reads only ever covers finished events; flushing writes the newest one.
    @Test func pacedSavesNeverPassAnUnfinishedEventAndFlushWritesTheNewest() async throws {
        try await withStore(.memory) { store, _ in
            let ledger = TriggerLedger(store: store, database: "local")
            let progress = TriggerProgress(state: TriggerState(name: "paced", identity: "i"), ledger: ledger)
            progress.startConsuming(at: 0)
            progress.begin(1)
            for sequence in Int64(1)...50 {
                progress.begin(sequence + 1)
                progress.finish(ChangeFeed.Entry(Self.event(sequence)), at: Date(), deadLettered: false)
                let saved = try await ledger.loadStates()["paced"]
                #expect((saved?.position ?? 0) <= sequence)
            }
            await progress.flush()
            let saved = try await ledger.loadStates()["paced"]
            #expect(saved?.position == 50)
            #expect(saved?.processed == 50)
            #expect(saved?.lastEventId == ResumeToken(sequence: 50).data)
        }
    }

    /// Without a flush, the last paced save is still written once the pause is over.
    @Test func thePausedSaveIsWrittenWithoutAFlush() async throws {
        try await withStore(.memory) { store, _ in
            let ledger = TriggerLedger(store: store, database: "local")
            let progress = TriggerProgress(state: TriggerState(name: "paced", identity: "i"), ledger: ledger)
            progress.startConsuming(at: 0)
            for sequence in Int64(1)...3 {
                progress.begin(sequence)
                progress.finish(ChangeFeed.Entry(Self.event(sequence)), at: Date(), deadLettered: false)
            }
            while try await ledger.loadStates()["paced"]?.position != 3 {
                try await Task.sleep(for: .milliseconds(1))
            }
            #expect(try await ledger.loadStates()["paced"]?.processed == 3)
        }
    }

    /// A suspension during a pause is written with the position before the event that did not finish.
    @Test func aSuspensionIsSavedWithThePositionBeforeTheUnfinishedEvent() async throws {
        try await withStore(.memory) { store, _ in
            let ledger = TriggerLedger(store: store, database: "local")
            let progress = TriggerProgress(state: TriggerState(name: "paced", identity: "i"), ledger: ledger)
            progress.startConsuming(at: 0)
            progress.begin(1)
            progress.finish(ChangeFeed.Entry(Self.event(1)), at: Date(), deadLettered: false)
            progress.begin(2)
            progress.abandon()
            progress.suspend(TriggerSuspension(reason: "stopped by a test", time: Date()))
            await progress.flush()
            let saved = try await ledger.loadStates()["paced"]
            #expect(saved?.suspension?.reason == "stopped by a test")
            #expect(saved?.position == 1)
        }
    }
}
