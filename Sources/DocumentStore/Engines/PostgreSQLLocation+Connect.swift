import CLibPQ
import Foundation

extension PostgreSQLLocation {
    /// A connection named `applicationName` (what `pg_stat_activity` shows of it), with a `connect_timeout` of 10 s
    /// unless the URL sets one (libpq applies the keywords in order, the URL's parameters in the place of `dbname`):
    /// a connection to an unreachable server would otherwise wait for TCP's own timeout, and every caller with it.
    /// Nil only when libpq is out of memory; otherwise check its `PQstatus`.
    func connect(applicationName: String) -> OpaquePointer? {
        let keywords: [UnsafeMutablePointer<CChar>?] = [
            strdup("connect_timeout"), strdup("dbname"), strdup("application_name"), nil,
        ]
        let values: [UnsafeMutablePointer<CChar>?] = [strdup("10"), strdup(url), strdup(applicationName), nil]
        defer { for pointer in keywords + values { free(pointer) } }
        return PQconnectdbParams(
            keywords.map { $0.map { UnsafePointer($0) } }, values.map { $0.map { UnsafePointer($0) } }, 1)
    }
}
