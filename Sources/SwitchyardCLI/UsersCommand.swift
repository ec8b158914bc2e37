import DocumentStore
import Foundation
import MongoWire
import Switchyard

#if canImport(Glibc)
    import Glibc
#endif

/// `switchyard users add|remove|list`: the users the MongoDB wire protocol authenticates with SCRAM.
struct UsersCommand: Command {
    static let name = "users"
    static let summary = "Add, remove or list the users the MongoDB wire protocol authenticates"
    static let usage = """
        USAGE: switchyard users add NAME [options]
               switchyard users remove NAME [options]
               switchyard users list [options]

        The users of the MongoDB wire protocol that 'switchyard serve' serves on --mongodb-port (not the
        app's own users, who log in through the client API). With none, serve asks for no authentication,
        as a local mongod without users does; once there is one, every connection must authenticate
        (SCRAM-SHA-256, or SCRAM-SHA-1 for older drivers) before it runs anything but the handshake:
          mongodb://NAME:PASSWORD@127.0.0.1:27017/?authSource=admin
        Each user holds MongoDB's built-in roles, given with --roles (root, all of it, by default): on one
        database read, readWrite, dbAdmin or dbOwner (readWrite@product); on every database
        readAnyDatabase, readWriteAnyDatabase, dbAdminAnyDatabase or root. A command beyond them is
        refused with Unauthorized (13).

        add asks for the password twice on the terminal, without echoing it; when standard input is not a
        terminal it reads the password from its first line. It stores salted SCRAM credentials (never the
        password) in the store's admin.mongodbUsers; adding a user that exists gives it the new password.
        serve reads the users when it starts, and holds the data directory while it runs: stop it, change
        the users, start it again.

        OPTIONS:
          --roles LIST          add: the user's roles, comma-separated (readWrite@product,read@reporting)
          --store URL           The PostgreSQL store serve runs with --store (default: DATA_DIR/store.sqlite)
        \(AppOptions.dataUsage)
          -h, --help            Show this help
        """

    enum Action: String, CaseIterable { case add, remove, list }

    var action: Action
    var user: String?
    var app: AppOptions
    var store: StoreConfiguration?
    var roles: [WireRole] = [.root]

    init(arguments: [String]) throws(UsageError) {
        let parsed = try Arguments(
            arguments, options: AppOptions.dataNames + ["--store", "--roles"], flags: [], usage: Self.usage)
        guard let word = parsed.positionals.first else {
            throw UsageError("missing 'add', 'remove' or 'list'", usage: Self.usage)
        }
        guard let action = Action(rawValue: word) else {
            let hint = ClosestMatch.suggestion(for: word, among: Action.allCases.map(\.rawValue)).map {
                " (did you mean '\($0)'?)"
            }
            throw UsageError("unknown action '\(word)'\(hint ?? ""); give 'add', 'remove' or 'list'", usage: Self.usage)
        }
        self.action = action
        let expected = action == .list ? 1 : 2
        guard parsed.positionals.count >= expected else { throw UsageError("missing NAME", usage: Self.usage) }
        guard parsed.positionals.count == expected else {
            throw UsageError("unexpected argument '\(parsed.positionals[expected])'", usage: Self.usage)
        }
        user = action == .list ? nil : parsed.positionals[1]
        app = try AppOptions(parsed, usage: Self.usage)
        if let list = parsed.value("--roles") {
            guard action == .add else { throw UsageError("--roles is for 'add'", usage: Self.usage) }
            roles = try Self.roles(list)
        }
        if let url = parsed.value("--store") {
            do {
                store = try StoreConfiguration.postgresql(url: url)
            } catch {
                throw UsageError("--store: \(error.message)", usage: Self.usage)
            }
        }
    }

    func run() async throws(CommandFailure) -> Int32 {
        // The password first: a mistyped one changes nothing, and the store is not held while someone types.
        let password = action == .add ? try Self.readPassword(for: user ?? "") : nil
        let claim: DataDirectoryClaim
        do {
            claim = try DataDirectoryClaim.take(app.dataDirectory)
        } catch {
            throw CommandFailure("switchyard users: \(error)", status: 1)
        }
        let opened: DocumentStore
        do {
            opened = try await DocumentStore.open(try app.store(store))
        } catch let failure as CommandFailure {
            claim.discard()
            throw failure
        } catch {
            claim.discard()
            throw CommandFailure("switchyard users: cannot open the store: \(error)", status: 1)
        }
        let outcome: Result<String, any Error>
        do {
            switch action {
            case .add:
                let existed = try await WireUsers.add(user ?? "", password: password ?? "", roles: roles, to: opened)
                let held = roles.map(\.description).joined(separator: ", ")
                outcome = .success("\(existed ? "changed" : "added") user \(user ?? "") (\(held))")
            case .remove:
                let removed = try await WireUsers.remove(user ?? "", from: opened)
                outcome = .success(removed ? "removed user \(user ?? "")" : "no user \(user ?? "")")
            case .list:
                let users = try await WireUsers.load(from: opened)
                let lines = users.names.map { name in
                    "\(name)  \(users.roles(of: name).map(\.description).joined(separator: ", "))"
                }
                outcome = .success(
                    lines.isEmpty ? "no users: serve asks for no authentication" : lines.joined(separator: "\n"))
            }
        } catch {
            outcome = .failure(error)
        }
        await opened.close()
        withExtendedLifetime(claim) {}
        switch outcome {
        case .success(let text): Output.print(text)
        case .failure(let error as StoreError) where error.code == .badValue:
            throw CommandFailure("switchyard users: \(error.message)", status: 2)
        case .failure(let error): throw CommandFailure("switchyard users: \(error)", status: 1)
        }
        return 0
    }

    /// `--roles`' list, each checked.
    private static func roles(_ list: String) throws(UsageError) -> [WireRole] {
        var roles: [WireRole] = []
        for text in list.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            guard let role = WireRole(text) else {
                let name = String(text.prefix { $0 != "@" })
                let names = WireRole.Name.allCases.map(\.rawValue)
                let hint =
                    names.contains(name)
                    ? ": \(name) is held on one database, as \(name)@DATABASE, or on every database, without one"
                    : ClosestMatch.suggestion(for: name, among: names).map { " (did you mean '\($0)'?)" } ?? ""
                throw UsageError("--roles: unknown role '\(text)'\(hint)", usage: usage)
            }
            roles.append(role)
        }
        guard !roles.isEmpty else { throw UsageError("--roles: give at least one role", usage: usage) }
        return roles
    }

    /// The password: asked twice on a terminal with echo off, else standard input's first line.
    private static func readPassword(for user: String) throws(CommandFailure) -> String {
        guard isatty(STDIN_FILENO) == 1 else {
            guard let line = readLine(strippingNewline: true), !line.isEmpty else {
                throw CommandFailure("switchyard users add: no password on standard input", status: 2)
            }
            return line
        }
        let first = prompt("Password for \(user): ")
        let second = prompt("Again: ")
        guard let first, !first.isEmpty else { throw CommandFailure("switchyard users add: no password", status: 2) }
        guard first == second else {
            throw CommandFailure("switchyard users add: the passwords differ; nothing changed", status: 2)
        }
        return first
    }

    /// Reads a line from the terminal without echoing it.
    private static func prompt(_ text: String) -> String? {
        Output.write(Array(text.utf8), to: .standardError)
        var original = termios()
        let saved = tcgetattr(STDIN_FILENO, &original) == 0
        if saved {
            var silent = original
            silent.c_lflag &= ~tcflag_t(ECHO)
            tcsetattr(STDIN_FILENO, TCSAFLUSH, &silent)
        }
        let line = readLine(strippingNewline: true)
        if saved { tcsetattr(STDIN_FILENO, TCSAFLUSH, &original) }
        Output.write(Array("\n".utf8), to: .standardError)
        return line
    }
}
