import CLibPQ
import Foundation
import Synchronization

/// A throwaway PostgreSQL server for tests and benchmarks: `initdb` into a temporary directory, started on a free
/// loopback port with its Unix socket in that directory, stopped (and the directory removed) when the process
/// exits. One per process (`shared()`), with a fresh database per test (`createDatabase`), so the suite pays for one
/// `initdb` and one start.
///
/// PostgreSQL refuses to run as root: run as root (CI's `.ci/run`), the server's tools run as Debian's `postgres`
/// user (created by the `postgresql` package) through `runuser`, in a directory that user owns.
public final class PostgreSQLServer: Sendable {
    public let port: UInt16
    public let directory: String
    private let administration: Mutex<Administration>
    /// The postmaster's process id, for stopping it at exit; a new one after each `start()`.
    private let postmaster: Atomic<pid_t>
    /// What starts the server again after `stopGracefully()`: the tools' runner and directory, the data directory
    /// and the server's options.
    private let runner: [String]
    private let binaries: String
    private let options: String

    private static let started = Mutex<Result<PostgreSQLServer, PostgreSQLServerError>?>(nil)

    /// The process's server, started on first use.
    public static func shared() throws -> PostgreSQLServer {
        try started.withLock { started in
            if let started { return try started.get() }
            let result = Result { () throws(PostgreSQLServerError) in try PostgreSQLServer(durable: false) }
            started = result
            if case .success = result { atexit { PostgreSQLServer.stopShared() } }
            return try result.get()
        }
    }

    /// A server of the caller's own, stopped by its `stop()`, with PostgreSQL's default durability (`fsync` and
    /// `synchronous_commit` on: a commit returns once its WAL is on disk), for benchmarks that compare against
    /// PostgreSQL as it is deployed rather than as the tests run it.
    public static func durable() throws -> PostgreSQLServer {
        try PostgreSQLServer(durable: true)
    }

    /// A server of the caller's own with the tests' durability, for tests that stop and start it
    /// (`stopGracefully()`, `start()`) and so must not share it; stopped by its `stop()`.
    public static func own() throws -> PostgreSQLServer {
        try PostgreSQLServer(durable: false)
    }

    /// The shared server if one was started, without starting it.
    public static var sharedIfStarted: PostgreSQLServer? {
        started.withLock { started in try? started?.get() }
    }

    private static func stopShared() {
        sharedIfStarted?.stop()
    }

    /// A `postgresql://` URL of database `name` on this server (no password: the server trusts loopback).
    public func url(database name: String) -> String {
        "postgresql://switchyard@127.0.0.1:\(port)/\(name)"
    }

    /// The URL of database `name` (lower case letters, digits, `_`), created empty on first use.
    public func database(_ name: String) throws -> String {
        try administration.withLock { administration in
            if !administration.created.contains(name) {
                try administration.execute("CREATE DATABASE \(name)")
                administration.created.insert(name)
            }
        }
        return url(database: name)
    }

    /// Drops a database made by `database(_:)` (closing connections still on it).
    public func dropDatabase(_ name: String) {
        administration.withLock { administration in
            guard administration.created.remove(name) != nil else { return }
            try? administration.execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
        }
    }

    /// Runs statements on the `postgres` database, for tests that look at the server itself.
    public func execute(_ sql: String) throws {
        try administration.withLock { administration in try administration.execute(sql) }
    }

    /// The rows of a query on the `postgres` database, each column as text (NULL as ""), for tests that look at the
    /// server's own views (`pg_stat_activity`).
    public func rows(_ sql: String) throws -> [[String]] {
        try administration.withLock { administration in try administration.rows(sql) }
    }

    /// `durable` false: `fsync` and `full_page_writes` off, as the tests want (a crash of theirs loses nothing).
    private init(durable: Bool) throws(PostgreSQLServerError) {
        let binaries = try Self.binaries()
        directory =
            FileManager.default.temporaryDirectory.appendingPathComponent("switchyard-pg-\(UUID().uuidString)")
            .path
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw PostgreSQLServerError("cannot create \(directory): \(error)")
        }
        let runner = try Self.runner(owning: directory)
        let data = directory + "/data"
        try Self.run(
            runner, binaries + "/initdb",
            ["-D", data, "-U", "switchyard", "-A", "trust", "-E", "UTF8", "--no-locale", "-N"],
            log: directory + "/initdb.log")
        var port: UInt16 = 0
        var options = ""
        var lastFailure: PostgreSQLServerError?
        // A port found free can be taken before the server binds it: another one then.
        for _ in 0..<5 {
            port = closedLoopbackPort()
            let durability = durable ? "-c fsync=on -c synchronous_commit=on" : "-c fsync=off -c full_page_writes=off"
            options = "-p \(port) -k \(directory) -c listen_addresses=127.0.0.1 \(durability) -c max_connections=300"
            do {
                try Self.start(runner, binaries, directory, options)
                lastFailure = nil
                break
            } catch {
                lastFailure = error
            }
        }
        if let lastFailure { throw lastFailure }
        self.port = port
        self.runner = runner
        self.binaries = binaries
        self.options = options
        postmaster = Atomic(Self.postmasterPID(directory))
        administration = Mutex(try Administration(url: "postgresql://switchyard@127.0.0.1:\(port)/postgres"))
    }

    private static func start(_ runner: [String], _ binaries: String, _ directory: String, _ options: String)
        throws(PostgreSQLServerError)
    {
        try run(
            runner, binaries + "/pg_ctl",
            ["-D", directory + "/data", "-l", directory + "/server.log", "-w", "-t", "60", "-o", options, "start"],
            log: directory + "/pg_ctl.log")
    }

    private static func postmasterPID(_ directory: String) -> pid_t {
        let text = (try? String(contentsOfFile: directory + "/data/postmaster.pid", encoding: .utf8)) ?? ""
        return pid_t(text.split(separator: "\n").first.flatMap { Int32($0) } ?? 0)
    }

    /// Shuts the server down as an operator's restart does (`pg_ctl stop -m fast`: open transactions roll back,
    /// every connection is closed, what was committed is checkpointed) and waits until it is down.
    public func stopGracefully() throws {
        administration.withLock { $0.close() }
        try Self.run(
            runner, binaries + "/pg_ctl", ["-D", directory + "/data", "-m", "fast", "-w", "-t", "60", "stop"],
            log: directory + "/pg_ctl.log")
        postmaster.store(0, ordering: .releasing)
    }

    /// Starts the server again on its port after `stopGracefully()`.
    public func start() throws {
        try Self.start(runner, binaries, directory, options)
        postmaster.store(Self.postmasterPID(directory), ordering: .releasing)
        let url = "postgresql://switchyard@127.0.0.1:\(port)/postgres"
        try administration.withLock { administration in try administration.reopen(url: url) }
    }

    /// Stops the server at once (SIGQUIT: immediate shutdown, nothing to keep) and removes its directory.
    public func stop() {
        administration.withLock { $0.close() }
        let postmaster = postmaster.load(ordering: .acquiring)
        if postmaster > 0 {
            kill(postmaster, SIGQUIT)
            for _ in 0..<500 where kill(postmaster, 0) == 0 { usleep(10_000) }
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// The directory of `initdb` and `pg_ctl`: Debian's newest `/usr/lib/postgresql/<version>/bin`.
    private static func binaries() throws(PostgreSQLServerError) -> String {
        let root = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? [])
            .compactMap(Int.init).sorted()
        for version in versions.reversed()
        where FileManager.default.isExecutableFile(atPath: "\(root)/\(version)/bin/initdb") {
            return "\(root)/\(version)/bin"
        }
        throw PostgreSQLServerError("no PostgreSQL server under \(root) (install Debian's postgresql)")
    }

    /// What runs the server's tools: nothing in between for an ordinary user; as root, `runuser` as `postgres`,
    /// who is given `directory`.
    private static func runner(owning directory: String) throws(PostgreSQLServerError) -> [String] {
        guard getuid() == 0 else { return [] }
        guard let user = getpwnam("postgres") else {
            throw PostgreSQLServerError(
                "PostgreSQL does not run as root and there is no postgres user to run it as (install Debian's postgresql)"
            )
        }
        guard chown(directory, user.pointee.pw_uid, user.pointee.pw_gid) == 0 else {
            throw PostgreSQLServerError("cannot give \(directory) to the postgres user: errno \(errno)")
        }
        return ["/usr/sbin/runuser", "-u", "postgres", "--"]
    }

    /// Runs a tool to its end, its output in `log`; fails with the log's text when it exits with an error. Spawned
    /// and awaited with posix_spawn and waitpid: Foundation's `Process` missed the end of `runuser` (left a zombie)
    /// and waited forever. The tool gets no other descriptor of the test process: the server `pg_ctl` starts
    /// outlives it.
    private static func run(_ runner: [String], _ tool: String, _ arguments: [String], log: String)
        throws(PostgreSQLServerError)
    {
        let command = runner + [tool] + arguments
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        do {
            try addClosingOfInheritedDescriptors(&actions)
        } catch {
            throw PostgreSQLServerError("cannot run \(command[0]): \(error)")
        }
        var arguments: [UnsafeMutablePointer<CChar>?] = command.map { strdup($0) } + [nil]
        defer { for argument in arguments { free(argument) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, command[0], &actions, nil, &arguments, environ)
        guard spawned == 0 else { throw PostgreSQLServerError("cannot run \(command[0]): errno \(spawned)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        // WIFEXITED and WEXITSTATUS are macros: exited normally when the low 7 bits are 0, status in the next 8.
        let exitStatus = (status & 0x7f) == 0 ? (status >> 8) & 0xff : -1
        guard exitStatus == 0 else {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            throw PostgreSQLServerError("\(tool) failed (status \(exitStatus)): \(text)")
        }
    }
}

/// Why the test server could not start, with the tool's own output.
public struct PostgreSQLServerError: Error, Sendable, CustomStringConvertible {
    public var description: String

    init(_ description: String) { self.description = description }
}

/// The administration connection (to the `postgres` database) that creates and drops the tests' databases.
private struct Administration: ~Copyable {
    /// Used by one thread at a time: the server's mutex guards it.
    private var handle: OpaquePointer?
    /// The databases made and not yet dropped.
    var created: Set<String> = []

    init(url: String) throws(PostgreSQLServerError) {
        handle = try Self.connect(url)
    }

    /// Connects again after the server restarted; the databases made before are still there.
    mutating func reopen(url: String) throws(PostgreSQLServerError) {
        close()
        handle = try Self.connect(url)
    }

    private static func connect(_ url: String) throws(PostgreSQLServerError) -> OpaquePointer? {
        let handle = PQconnectdb(url)
        guard PQstatus(handle) == CONNECTION_OK else {
            let message = String(cString: PQerrorMessage(handle))
            PQfinish(handle)
            throw PostgreSQLServerError("cannot connect to the test server: \(message)")
        }
        return handle
    }

    func execute(_ sql: String) throws(PostgreSQLServerError) {
        let result = PQexec(handle, sql)
        defer { PQclear(result) }
        let status = PQresultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
            throw PostgreSQLServerError("\(sql): \(String(cString: PQresultErrorMessage(result)))")
        }
    }

    func rows(_ sql: String) throws(PostgreSQLServerError) -> [[String]] {
        let result = PQexec(handle, sql)
        defer { PQclear(result) }
        guard PQresultStatus(result) == PGRES_TUPLES_OK else {
            throw PostgreSQLServerError("\(sql): \(String(cString: PQresultErrorMessage(result)))")
        }
        return (0..<PQntuples(result)).map { row in
            (0..<PQnfields(result)).map { column in String(cString: PQgetvalue(result, row, column)) }
        }
    }

    mutating func close() {
        PQfinish(handle)
        handle = nil
    }
}
