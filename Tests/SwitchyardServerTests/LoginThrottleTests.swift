import BSON
import Foundation
import Messaging
import Switchyard
import Synchronization
import TestSupport
import Testing

@testable import SwitchyardServer

/// Password guessing and anonymous sign-ups past their limits answer 429 `TooManyRequests` with a `Retry-After`,
/// while everything else is still answered; password derivations wait in a bounded queue.
@Suite(.timeLimit(.minutes(1))) struct LoginThrottleTests {
    /// Limits no test outlasts: nothing refills while it runs.
    static let hour = Duration.seconds(3600)

    static func withApp<Result>(_ limits: AuthLimits, _ body: (ServedApp) async throws -> Result) async throws
        -> Result
    {
        var registry = FunctionRegistry()
        registry.register("ping") { (_: [BSON], _: FunctionContext) in "pong" }
        return try await ServedApp.with(registry, authLimits: limits, body)
    }

    static func expectTooManyRequests(_ response: HTTPResponse, _ comment: Comment? = nil) {
        #expect(response.status == 429, comment)
        #expect(response.errorCode == "TooManyRequests", comment)
        #expect((response.headers["Retry-After"].flatMap { Int($0) } ?? 0) >= 1, comment)
    }

    @Test func concurrentPasswordGuessesPastTheLimitsGet429AndOthersAreStillServed() async throws {
        let limits = AuthLimits(
            passwordAttemptsPerAddress: RateLimit(burst: 8, interval: Self.hour),
            passwordAttemptsPerAccount: RateLimit(burst: 3, interval: Self.hour))
        try await Self.withApp(limits) { served in
            let user = try await served.registerAndLogin("ada@example.com", "right-password")
            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.self) { group in
                for index in 0..<16 {
                    // Spelled several ways, all the one account.
                    let email = ["ada@example.com", " ADA@example.com", "Ada@Example.com "][index % 3]
                    group.addTask { try await served.login(email, "guess-\(index)") }
                }
                var responses: [HTTPResponse] = []
                for try await response in group { responses.append(response) }
                return responses
            }
            // The account allows 3 failed attempts (its successful login gave its attempt back).
            #expect(statuses.filter { $0.status == 401 }.count == 3)
            for response in statuses where response.status != 401 { Self.expectTooManyRequests(response) }
            // The right password is refused too while the account is held, without a password check.
            Self.expectTooManyRequests(try await served.login("ada@example.com", "right-password"))
            // Everything else is still answered: location, anonymous logins, function calls.
            #expect(try await served.get("\(served.appBase)/location").status == 200)
            let anonymous = try await served.loginAnonymously()
            #expect(try await served.call("ping", token: anonymous.accessToken).status == 200)
            #expect(try await served.call("ping", token: user.accessToken).status == 200)
        }
    }

    @Test func passwordAttemptsFromOneAddressPastItsLimitGet429() async throws {
        let limits = AuthLimits(passwordAttemptsPerAddress: RateLimit(burst: 4, interval: Self.hour))
        try await Self.withApp(limits) { served in
            var statuses: [Int] = []
            for index in 0..<8 {
                let response = try await served.login("user\(index)@example.com", "password")
                if response.status == 429 { Self.expectTooManyRequests(response) }
                statuses.append(response.status)
            }
            #expect(statuses == [401, 401, 401, 401, 429, 429, 429, 429])
            Self.expectTooManyRequests(try await served.register("new@example.com", "password"))
        }
    }

    @Test func successfulLoginsDoNotUseUpTheAccountsAllowance() async throws {
        let limits = AuthLimits(passwordAttemptsPerAccount: RateLimit(burst: 2, interval: Self.hour))
        try await Self.withApp(limits) { served in
            _ = try await served.registerAndLogin("grace@example.com", "right-password")
            for _ in 0..<6 { #expect(try await served.login("grace@example.com", "right-password").status == 200) }
        }
    }

    @Test func anonymousSignUpsPastTheLimitGet429() async throws {
        let limits = AuthLimits(anonymousUsersPerAddress: RateLimit(burst: 10, interval: Self.hour))
        try await Self.withApp(limits) { served in
            let responses = try await withThrowingTaskGroup(of: HTTPResponse.self) { group in
                for _ in 0..<30 {
                    group.addTask {
                        try await served.post(
                            "\(served.appBase)/auth/providers/anon-user/login", #"{"provider": "anon-user"}"#)
                    }
                }
                var responses: [HTTPResponse] = []
                for try await response in group { responses.append(response) }
                return responses
            }
            let made = responses.filter { $0.status == 200 }
            #expect(made.count == 10)
            for response in responses where response.status != 200 { Self.expectTooManyRequests(response) }
            let login = try ServedApp.login(from: try #require(made.first))
            #expect(try await served.call("ping", token: login.accessToken).status == 200)
        }
    }

    @Test func theLimitersTablesStayBounded() throws {
        let limiter = RateLimiter(limit: RateLimit(burst: 1, interval: Self.hour), capacity: 100)
        for index in 0..<1_000 { try? limiter.take("10.0.\(index / 256).\(index % 256)") }
        #expect(limiter.count <= 100)
        // The newest keys are still remembered.
        #expect(throws: RateLimiter.Refusal.self) { try limiter.take("10.0.3.231") }
    }

    /// A derivation that finds the queue full is refused at once instead of waiting behind the others.
    @Test func keyDerivationsWaitInABoundedQueue() async throws {
        let queue = KeyDerivationQueue(concurrency: 1, waitingLimit: 1)
        // The running derivation holds its turn until the test releases it, however slowly the machine runs.
        let release = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        let refusals = Atomic(0)
        let running = Task {
            try await queue.run {
                started.signal()
                return release.wait(timeout: .now() + 45) == .success ? 1 : 0
            }
        }
        try await offPool { _ = started.wait(timeout: .now() + 45) }
        // One of these two waits for the turn; the other finds the queue full.
        let contend: @Sendable () async -> Int? = {
            do {
                return try await queue.run { 2 }
            } catch {
                refusals.add(1, ordering: .releasing)
                return nil
            }
        }
        let contenders = [Task { await contend() }, Task { await contend() }]
        let deadline = ContinuousClock.now + .seconds(45)
        while refusals.load(ordering: .acquiring) == 0, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        release.signal()
        #expect(try await running.value == 1)
        var results: [Int?] = []
        for contender in contenders { results.append(await contender.value) }
        #expect(results.compactMap { $0 } == [2])
    }
}
