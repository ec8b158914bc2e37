import BSON
import Foundation

extension AppConfiguration {
    /// A readable account of what the app would run, for `switchyard run`: one line per trigger (name,
    /// type, what it watches, the function it calls, whether it is disabled), then each value with secrets
    /// shown as `<secret>`. Scheduled triggers show their next fire time after `now`, in UTC.
    package func overview(now: Date) -> String {
        var lines = ["app: \(definition.appId ?? "(no appId)") (environment: \(environment.rawValue))"]
        lines.append("triggers (\(triggers.count)):")
        let rows = triggers.map { trigger in
            [
                trigger.name, trigger.kind.typeName, trigger.sourceDescription(now: now),
                "-> \(trigger.handlerName)" + (trigger.disabled ? " (disabled)" : ""),
            ]
        }
        lines += Self.aligned(rows).map { "  \($0)" }
        lines.append("values (\(values.names.count)):")
        for name in values.names {
            switch values[name] {
            case .plain(let value): lines.append("  \(name) = \(value.extendedJSON(mode: .relaxed))")
            case .secret: lines.append("  \(name) = <secret>")
            case nil: break
            }
        }
        return lines.joined(separator: "\n")
    }

    /// Columns padded to their widest cell; the last column is not padded.
    static func aligned(_ rows: [[String]]) -> [String] {
        guard let columns = rows.map(\.count).max() else { return [] }
        let widths = (0..<columns).map { column in rows.map { column < $0.count ? $0[column].count : 0 }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { column, cell in
                column == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[column] - cell.count)
            }.joined(separator: "  ")
        }
    }
}

extension TriggerDefinition {
    /// What fires the trigger: `db.coll INSERT, DELETE`, `*/5 * * * * (next 2026-01-01T00:05:00Z)`,
    /// or `create via anon-user, local-userpass`.
    package func sourceDescription(now: Date) -> String {
        switch kind {
        case .database(let trigger):
            let scope =
                switch trigger.scope {
                case .deployment: "all databases"
                case .database(let name): "\(name).*"
                case .collection(let database, let collection): "\(database).\(collection)"
                }
            return "\(scope) \(trigger.operations.sorted().map(\.rawValue).joined(separator: ", "))"
        case .scheduled(let trigger):
            let next = trigger.schedule.next(after: now)
            let when = next == .distantFuture ? "never" : UTCTimestamp.text(next)
            return "\(trigger.schedule.expression) (next \(when))"
        case .authentication(let trigger):
            return
                "\(trigger.operation.rawValue) via \(trigger.providers.sorted().map(\.rawValue).joined(separator: ", "))"
        }
    }
}
