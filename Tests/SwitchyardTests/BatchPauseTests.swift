import Synchronization
import Testing

@testable import Switchyard

@Suite(.timeLimit(.minutes(1))) struct BatchPauseTests {
    @Test func aPauseEndsByItself() async {
        let pause = BatchPause(duration: .milliseconds(1))
        for _ in 0..<3 { await pause.pause() }
    }

    @Test func cuttingShortEndsThePauseInProgress() async throws {
        let pause = BatchPause(duration: .seconds(3600))
        let ended = Atomic(false)
        let pausing = Task {
            await pause.pause()
            ended.store(true, ordering: .sequentiallyConsistent)
        }
        // Cut short until the pause has ended: a cut that came before it began ends it at once as well.
        while !ended.load(ordering: .sequentiallyConsistent) {
            pause.cutShort()
            try await Task.sleep(for: .milliseconds(1))
        }
        await pausing.value
    }

    @Test func aCutWithNobodyPausingEndsOnlyTheNextPause() async throws {
        let pause = BatchPause(duration: .seconds(3600))
        pause.cutShort()
        await pause.pause()
        // The cut was used up: the next pause lasts until it is cut in turn.
        let ended = Atomic(false)
        let next = Task {
            await pause.pause()
            ended.store(true, ordering: .sequentiallyConsistent)
        }
        try await Task.sleep(for: .milliseconds(50))
        let endedEarly = ended.load(ordering: .sequentiallyConsistent)
        #expect(!endedEarly)
        while !ended.load(ordering: .sequentiallyConsistent) {
            pause.cutShort()
            try await Task.sleep(for: .milliseconds(1))
        }
        await next.value
    }
}
