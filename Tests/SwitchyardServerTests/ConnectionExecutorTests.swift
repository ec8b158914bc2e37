import BSON
import Dispatch
import Foundation
import Switchyard
import Testing

@testable import SwitchyardServer

/// A called function runs on its request's connection thread; one that outlives its time limit is answered for
/// on time and still runs to its end after the thread has gone back to serving.
@Suite(.timeLimit(.minutes(1))) struct ConnectionExecutorTests {
    @Test func aFunctionPastItsLimitRunsToItsEndAfterTheAnswer() async throws {
        var registry = FunctionRegistry()
        registry.register("stubborn") { (_: [BSON], context: FunctionContext) -> BSON in
            // Waits without noticing cancellation, then writes: the write resumes after the request was answered.
            await withCheckedContinuation { continuation in
                DispatchQueue.global().asyncAfter(deadline: .now() + 0.3) { continuation.resume() }
            }
            try await context.services.mongodb().db("app").collection("done").insertOne(["by": "stubborn"])
            return true
        }
        registry.register("quick") { (_: [BSON], _: FunctionContext) in "fine" }
        let definition = AppDefinition(
            functions: ["stubborn": FunctionSettings(timeout: .milliseconds(50))],
            auth: AuthSettings(providers: [.anonymous]))
        try await ServedApp.with(registry, definition: definition) { served in
            let token = try await served.loginAnonymously().accessToken
            let answer = try await served.call("stubborn", token: token)
            #expect(answer.status == 400)
            #expect(answer.errorMessage?.contains("timed out after 50ms") == true)
            // The same connection serves the next call meanwhile.
            #expect(try await served.call("quick", token: token).text == #""fine""#)
            let done = served.app.store.database("app").collection("done")
            let deadline = ContinuousClock.now + .seconds(10)
            while try await done.countDocuments() == 0, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(try await done.countDocuments() == 1)
        }
    }
}
