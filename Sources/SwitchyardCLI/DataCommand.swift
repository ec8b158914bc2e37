import DocumentStore
import Foundation
import Switchyard
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `switchyard data export DIR` and `switchyard data import DIR`: the app's data as Extended JSON files;
/// `switchyard data backup DIR`: a copy of the store itself, made while the app runs.
struct DataCommand: Command {
    static let name = "data"
    static let summary = "Export the app's data to Extended JSON files, import such files, or back up the store"
    static let usage = """
        USAGE: switchyard data export DIR [--include-internal] [options]
               switchyard data import DIR [--fire-triggers] [--include-internal] [options]
               switchyard data backup DIR [options]

        export writes one file per collection, DIR/<db>.<collection>.json, holding one canonical Extended
        JSON document per line (sorted by _id; every BSON type survives), and DIR/collections.json with
        each collection's indexes. Files an earlier export left for collections that are gone are removed.
        It only reads the data, so it works while the app runs.

        import replaces each collection that has a file in DIR by that file's documents and indexes (one
        transaction per collection; collections without a file are left alone). Every file is read before
        anything is written: an error names FILE:LINE:COLUMN and changes nothing (exit 2). A file may also
        hold one JSON array of documents. Hand-written files need no collections.json. Large imports show
        their progress on standard error. The app must not be running (one writer per data directory).

        backup copies the store (every database, Switchyard's own records too) into DIR/store.sqlite with
        SQLite's online backup, as one committed state, while the app runs; DIR/store.identity goes beside
        it. A copy of the data directory's store.sqlite alone is no backup: recent commits live in
        store.sqlite-wal until a checkpoint. To restore, stop the app and copy both files into the data
        directory, replacing its store.sqlite and store.identity and removing store.sqlite-wal and
        store.sqlite-shm. DIR must not hold a store already.

        An import is not a change: no trigger fires for it, now or later, and change streams do not see
        it. With --fire-triggers it is written as ordinary changes (a delete for each document replaced,
        an insert for each new one): the app's triggers are started, run on the import's events, and are
        stopped once they caught up; each trigger's runs are counted.

        OPTIONS:
          --fire-triggers       Log the import as changes and run the triggers on them
          --include-internal    Also export or import admin, local and config, where Switchyard keeps its
                                own records (trigger state, invocation log, outbox)
        \(AppOptions.dataUsage)
          -h, --help            Show this help
        """

    enum Action: String, CaseIterable { case export, `import`, backup }

    var action: Action
    var directory: String
    var app: AppOptions
    var fireTriggers: Bool
    var includeInternal: Bool

    init(arguments: [String]) throws(UsageError) {
        let parsed = try Arguments(
            arguments, options: AppOptions.dataNames, flags: ["--fire-triggers", "--include-internal"],
            usage: Self.usage)
        guard let word = parsed.positionals.first else {
            throw UsageError("missing 'export', 'import' or 'backup'", usage: Self.usage)
        }
        guard let action = Action(rawValue: word) else {
            let hint = ClosestMatch.suggestion(for: word, among: Action.allCases.map(\.rawValue)).map {
                " (did you mean '\($0)'?)"
            }
            throw UsageError(
                "unknown action '\(word)'\(hint ?? ""); give 'export', 'import' or 'backup'", usage: Self.usage)
        }
        self.action = action
        guard parsed.positionals.count >= 2 else {
            throw UsageError(
                "missing DIR, the directory to \(word) \(action == .import ? "from" : "to")", usage: Self.usage)
        }
        guard parsed.positionals.count == 2 else {
            throw UsageError("unexpected argument '\(parsed.positionals[2])'", usage: Self.usage)
        }
        directory = parsed.positionals[1]
        app = try AppOptions(parsed, usage: Self.usage)
        fireTriggers = parsed.has("--fire-triggers")
        includeInternal = parsed.has("--include-internal")
        if fireTriggers && action != .import {
            throw UsageError("--fire-triggers is for import", usage: Self.usage)
        }
        if includeInternal && action == .backup {
            throw UsageError(
                "--include-internal is for export and import (a backup holds everything)", usage: Self.usage)
        }
    }

    func run() async throws(CommandFailure) -> Int32 {
        switch action {
        case .export: try await export()
        case .import: try await fireTriggers ? importFiringTriggers() : importQuietly()
        case .backup: try backup()
        }
        return 0
    }

    /// Needs no claim on the data directory: the online backup reads beside a running app's writers.
    private func backup() throws(CommandFailure) {
        guard FileManager.default.fileExists(atPath: "\(app.dataDirectory)/store.sqlite") else {
            throw CommandFailure(
                "switchyard data backup: no data in \(app.dataDirectory) (check --data-dir)", status: 2)
        }
        let summary: StoreBackup.Summary
        do {
            summary = try StoreBackup.copy(storeIn: app.dataDirectory, to: directory)
        } catch {
            throw CommandFailure("switchyard data backup: \(error.message)", status: error.code == .badValue ? 2 : 1)
        }
        Output.print("backed up \(app.dataDirectory) through change \(summary.committedThrough) to \(summary.file)")
    }

    private func export() async throws(CommandFailure) {
        guard let store = try await app.openStoreForReading() else {
            throw CommandFailure(
                "switchyard data export: no data in \(app.dataDirectory) (check --data-dir)", status: 2)
        }
        let exported: [DataExport.Collection]
        do {
            exported = try await DataExport.export(
                store: store, to: directory, options: DataExport.Options(includeInternalDatabases: includeInternal))
        } catch {
            await store.close()
            throw CommandFailure("switchyard data export: \(error)", status: 1)
        }
        await store.close()
        for collection in exported {
            Output.print(
                "exported \(collection.namespace): \(counted(collection.documents, "document")), \(indexes(collection.indexes)) → \(collection.file)"
            )
        }
        Output.print("exported \(counted(exported.count, "collection")) to \(directory)")
    }

    private func importQuietly() async throws(CommandFailure) {
        let claim: DataDirectoryClaim
        do {
            claim = try DataDirectoryClaim.take(app.dataDirectory)
        } catch {
            throw CommandFailure("switchyard data import: \(error)", status: 1)
        }
        let store: DocumentStore
        do throws(CommandFailure) {
            let configuration = try app.store()
            do {
                store = try await DocumentStore.open(configuration)
            } catch {
                throw CommandFailure(
                    "switchyard data import: cannot open the store \(AppOptions.describe(configuration, in: app.dataDirectory)): \(error)",
                    status: 1)
            }
        } catch {
            claim.discard()
            throw error
        }
        let result = await importFiles(into: store)
        await store.close()
        if case .failure = result { claim.discard() }
        withExtendedLifetime(claim) {}
        try report(result)
    }

    private func importFiringTriggers() async throws(CommandFailure) {
        let opened = try await app.openApp()
        let app = opened.app
        let records = app.invocations.follow()
        let result: Result<DataImport.Summary, DataImportError>
        do {
            try await app.start()
            result = await importFiles(into: app.store)
            try await app.awaitIdle()
        } catch {
            await opened.stop()
            throw CommandFailure("switchyard data import: cannot run the triggers: \(error)", status: 1)
        }
        if case .failure = result { await opened.discard() } else { await opened.stop() }
        try report(result)
        var runs: [String: (total: Int, failed: Int)] = [:]
        for await record in records {
            guard let trigger = record.trigger else { continue }
            runs[trigger, default: (0, 0)].total += 1
            if record.outcome != .success { runs[trigger, default: (0, 0)].failed += 1 }
        }
        if runs.isEmpty { Output.print("no trigger fired") }
        for (trigger, count) in runs.sorted(by: { $0.key < $1.key }) {
            Output.print("trigger \(trigger): \(counted(count.total, "run")), \(count.failed) failed")
        }
    }

    /// Imports DIR, drawing progress on standard error (a bar on a terminal, plain lines otherwise).
    private func importFiles(into store: DocumentStore) async -> Result<DataImport.Summary, DataImportError> {
        let meter = Mutex(DataImportProgressMeter(isTerminal: isatty(STDERR_FILENO) == 1))
        do {
            return .success(
                try await DataImport.import(
                    from: directory, into: store,
                    options: DataImport.Options(logChanges: fireTriggers, includeInternalDatabases: includeInternal)
                ) { progress in
                    meter.withLock { meter in
                        if let text = meter.text(for: progress) { Output.write(Array(text.utf8), to: .standardError) }
                    }
                })
        } catch {
            return .failure(error)
        }
    }

    /// `1 index`, `2 indexes`.
    private func indexes(_ count: Int) -> String { "\(count) index\(count == 1 ? "" : "es")" }

    private func report(_ result: Result<DataImport.Summary, DataImportError>) throws(CommandFailure) {
        let summary: DataImport.Summary
        switch result {
        case .success(let value): summary = value
        case .failure(let error): throw CommandFailure(error.description, status: 2)
        }
        for note in summary.skipped { Output.error("note: skipped \(note)") }
        for collection in summary.collections {
            Output.print(
                "imported \(collection.namespace): \(counted(collection.documents, "document")), \(indexes(collection.indexes))"
            )
        }
        Output.print("imported \(counted(summary.collections.count, "collection")) from \(directory)")
    }
}
