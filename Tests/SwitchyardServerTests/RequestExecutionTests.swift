import BSON
import Dispatch
import Foundation
import Messaging
import Switchyard
import Synchronization
import Testing

@testable import SwitchyardServer

/// A handler runs on the server thread that read its request until it waits on something elsewhere; then its
/// connection waits while the thread serves others. A called function that outlives its time limit is answered
/// for on time and still runs to its end after the answer.
@Suite(.timeLimit(.minutes(1))) struct RequestExecutionTests {
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
        try await Self.call("stubborn", limit: .milliseconds(50), of: registry) { served, token, answer in
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

    /// At its limit the function's task is cancelled, and the run is recorded as timed out (with what it logged)
    /// before the client has its answer; the function's own end adds no record.
    @Test func aServedCallPastItsLimitIsRecordedAndCancelledBeforeItsAnswer() async throws {
        let gate = Gate()
        let sawCancellation = Atomic(false)
        let returned = Atomic(false)
        var registry = FunctionRegistry()
        registry.register("stubborn") { (_: [BSON], context: FunctionContext) -> BSON in
            context.log("starting")
            await gate.wait()
            sawCancellation.store(Task.isCancelled, ordering: .releasing)
            context.log("after the limit")
            returned.store(true, ordering: .releasing)
            return "late"
        }
        try await Self.call("stubborn", limit: .milliseconds(50), of: registry) { served, _, answer in
            #expect(answer.status == 400)
            #expect(answer.errorCode == "ExecutionTimeLimitExceeded")
            let records = try await served.app.invocations.records(function: "stubborn")
            #expect(records.map(\.outcome) == [.timeout])
            #expect(records.first?.logs == ["starting"])
            gate.open()
            while !returned.load(ordering: .acquiring) { try await Task.sleep(for: .milliseconds(5)) }
            let cancelled = sawCancellation.load(ordering: .acquiring)
            #expect(cancelled)
            await served.app.invocations.flush()
            #expect(try await served.app.invocations.records(function: "stubborn").count == 1)
        }
    }

    /// The limit counts from the function's start: a function that computed past it before it first waited is
    /// answered for as soon as it waits, rather than given its whole limit again (which would let it finish here).
    @Test func theLimitCountsFromTheFunctionsStartNotItsFirstWait() async throws {
        var registry = FunctionRegistry()
        registry.register("busyFirst") { (_: [BSON], _: FunctionContext) -> BSON in
            let clock = ContinuousClock()
            let start = clock.now
            while start.duration(to: clock.now) < .milliseconds(150) {}
            try await Task.sleep(for: .milliseconds(90))
            return "done"
        }
        try await Self.call("busyFirst", limit: .milliseconds(100), of: registry) { served, _, answer in
            #expect(answer.errorMessage?.contains("timed out after 100ms") == true)
            let outcomes = try await served.app.invocations.records(function: "busyFirst").map(\.outcome)
            #expect(outcomes == [.timeout])
        }
    }

    /// Only the timed-out function's task is cancelled: the calls that follow it on its connection (so its server
    /// thread) run uncancelled.
    @Test func callsAfterATimedOutOneOnItsConnectionRunUncancelled() async throws {
        let ended = Atomic(false)
        var registry = FunctionRegistry()
        registry.register("busyFirst") { (_: [BSON], _: FunctionContext) -> BSON in
            defer { ended.store(true, ordering: .releasing) }
            let clock = ContinuousClock()
            let start = clock.now
            while start.duration(to: clock.now) < .milliseconds(150) {}
            // Cancelled when it waits (the limit passed), after computing on the server thread it started on. The
            // wait ends at that cancellation: long enough for a loaded machine to run the deadline first.
            try? await Task.sleep(for: .seconds(5))
            return "done"
        }
        registry.register("cancelled") { (_: [BSON], _: FunctionContext) in .bool(Task.isCancelled) }
        try await Self.call("busyFirst", limit: .milliseconds(100), of: registry) { served, token, answer in
            #expect(answer.errorMessage?.contains("timed out after 100ms") == true)
            while !ended.load(ordering: .acquiring) { try await Task.sleep(for: .milliseconds(5)) }
            for _ in 0..<5 { #expect(try await served.call("cancelled", token: token).text == "false") }
        }
    }

    /// Serves `registry` with `function` limited to `limit` and calls it once as an anonymous user; `body` gets the
    /// served app, the caller's token and the answer.
    private static func call(
        _ function: String, limit: Duration, of registry: FunctionRegistry,
        _ body: (ServedApp, String, HTTPResponse) async throws -> Void
    ) async throws {
        let definition = AppDefinition(
            functions: [function: FunctionSettings(timeout: limit)], auth: AuthSettings(providers: [.anonymous]))
        try await ServedApp.with(registry, definition: definition) { served in
            let token = try await served.loginAnonymously().accessToken
            try await body(served, token, try await served.call(function, token: token))
        }
    }

    /// One server thread: requests whose handlers wait must not hold up the thread, or the quick request below
    /// could never be answered while they wait.
    @Test func waitingHandlersLeaveTheThreadToOtherRequests() async throws {
        let gate = Gate()
        var router = Router()
        router.add("GET", "/slow/{n}") { _, parameters in
            await gate.wait()
            return .text("slow \(parameters["n"] ?? "")")
        }
        router.add("GET", "/quick") { _, _ in .text("quick") }
        let server = try HTTPServer(configuration: .init(host: "127.0.0.1", port: 0, threads: 1), router: router)
        let client = try HTTPClient()
        let waiting = 20
        try await withThrowingTaskGroup(of: String.self) { group in
            for n in 0..<waiting {
                group.addTask { try await client.get(url: "\(server.baseURL)/slow/\(n)").text }
            }
            while gate.waiters < waiting { try await Task.sleep(for: .milliseconds(5)) }
            #expect(try await client.get(url: "\(server.baseURL)/quick").text == "quick")
            gate.open()
            var answers: Set<String> = []
            for try await answer in group { answers.insert(answer) }
            #expect(answers == Set((0..<waiting).map { "slow \($0)" }))
        }
        await server.stop()
    }

    /// A handler that answers after the server began stopping is still heard; `stop` then returns.
    @Test func stoppingLetsAWaitingHandlerAnswer() async throws {
        let gate = Gate()
        var router = Router()
        router.add("GET", "/slow") { _, _ in
            await gate.wait()
            return .text("late but here")
        }
        let server = try HTTPServer(configuration: .init(host: "127.0.0.1", port: 0, threads: 1), router: router)
        let client = try HTTPClient()
        async let answer = client.get(url: "\(server.baseURL)/slow")
        while gate.waiters < 1 { try await Task.sleep(for: .milliseconds(5)) }
        async let stopped: Void = server.stop()
        try await Task.sleep(for: .milliseconds(50))
        gate.open()
        #expect(try await answer.text == "late but here")
        await stopped
    }

    /// A handler still waiting when the grace period ends has its connection closed, and `stop` returns.
    @Test func stoppingClosesConnectionsWhoseHandlerNeverAnswers() async throws {
        let gate = Gate()
        var router = Router()
        router.add("GET", "/never") { _, _ in
            await gate.wait()
            return .text("too late")
        }
        let server = try HTTPServer(configuration: .init(host: "127.0.0.1", port: 0, threads: 1), router: router)
        let client = try HTTPClient()
        let answer = Task { try await client.get(url: "\(server.baseURL)/never") }
        while gate.waiters < 1 { try await Task.sleep(for: .milliseconds(5)) }
        await server.stop()
        await #expect(throws: HTTPClientError.self) { try await answer.value }
        // The handler finishing after the connection is gone touches nothing.
        gate.open()
        try await Task.sleep(for: .milliseconds(50))
    }
}
