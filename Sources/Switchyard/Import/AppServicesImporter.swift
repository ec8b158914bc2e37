import BSON
import Foundation

/// Reads an App Services export (from `appservices pull`, `realm-cli export` or the UI) into an
/// `AppServicesImport`, in the current layout and the older ones: the root configuration (`root_config.json`,
/// `realm_config.json` or `config.json`), `triggers/*.json` (the function under `event_processors` or, in
/// old exports, at the top level), `functions/config.json` with `functions/*.js` (or `functions/<name>/`
/// with `config.json` and `source.js`), `values/`, `environments/` (with `no-environment.json`),
/// `auth/providers.json` (or `auth_providers/*.json`) with each provider's settings,
/// `auth/custom_user_data.json`, `http_endpoints/config.json` (or `https_endpoints/`) as `endpoints:`,
/// `log_forwarders/*.json` as `logForwarders:`, and `data_sources/` and the rest of the endpoint folders, which it
/// keeps verbatim. What Switchyard does not run (Device Sync, GraphQL, hosting, third-party services, EventBridge
/// triggers, …) becomes one `ImportNote` each; every problem is reported with its file and position.
package enum AppServicesImporter {
    /// What only an export has at its root: one of these is there, or the directory is something else.
    static let exportEntries = [
        "root_config.json", "realm_config.json", "config.json", "triggers", "functions", "values", "auth",
        "auth_providers", "environments", "data_sources", "http_endpoints", "https_endpoints",
    ]

    package static func read(exportDirectory: String) throws(ConfigurationErrors) -> AppServicesImport {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: exportDirectory)) ?? []
        guard entries.contains(where: exportEntries.contains) else {
            throw ConfigurationErrors([
                ConfigurationError(
                    file: exportDirectory, location: nil,
                    message:
                        "not an App Services export: an export (appservices pull, realm-cli export) holds root_config.json or realm_config.json (config.json in the legacy form) with triggers/, functions/, values/, auth/ and environments/ beside it"
                )
            ])
        }
        var session = ImportSession(root: exportDirectory)
        let result = session.run()
        guard session.errors.isEmpty else { throw ConfigurationErrors(session.errors) }
        return result
    }
}
