/// Where `triggers.yaml` keeps the app's data (`store:`) when not in SQLite in the data directory: a PostgreSQL
/// database, named by a URL without a password (libpq then finds one in `PGPASSWORD` or `~/.pgpass`) or by a secret
/// that holds the whole URL, so a password never sits in a file under version control.
package enum StoreDeclaration: Sendable, Equatable {
    case postgresql(url: String)
    /// The secret (`SWITCHYARD_SECRET_<NAME>` or `secrets.json`) whose value is the URL.
    case secret(name: String)
}
