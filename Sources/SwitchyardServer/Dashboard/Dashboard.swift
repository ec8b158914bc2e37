/// The web dashboard at `/`: plain HTML, CSS and JavaScript that use the admin API.
///
/// How the page gets the admin token: `GET /` answers only a client on this machine that asked for this
/// machine by name (`Host: 127.0.0.1…`, `localhost…`, `[::1]…`), and the page it answers carries the token in a
/// `<meta>` tag. So:
/// - other machines get 403, like the admin API;
/// - a web page from elsewhere open in the same browser cannot read the answer (same-origin policy: no CORS
///   headers are ever sent), and cannot make the browser send the `Authorization` header either;
/// - a web page that rebinds its own DNS name to 127.0.0.1 gets 403, because its requests name its own host;
/// - the token never appears in a URL (history, logs, `Referer`), and the answer is `Cache-Control: no-store`.
/// Any local account can still fetch `/`, as it can connect to the port: on a shared machine, serve from a
/// container or bind another address. After a restart (a new token) the page reloads itself to pick it up.
package struct Dashboard: Sendable {
    static let tokenPlaceholder = "__SWITCHYARD_ADMIN_TOKEN__"
    /// Where the files other than the page are served.
    package static let assetsPath = "/dashboard"

    let token: AdminToken
    let assets: DashboardAssets

    package init(token: AdminToken) {
        self.token = token
        assets = DashboardAssets.load()
    }

    /// The page and its files, only for this machine asking for this machine by name (see above).
    package var routes: RouterGroup {
        var routes = RouterGroup(
            middleware: [LoopbackOnly("the dashboard", answering: "browsers", requiresLoopbackHost: true)])
        let page = pageBytes
        let assets = self.assets
        routes.add("GET", "/") { _, _ in
            guard let page else { throw APIError.internalError(assets.problem ?? "the dashboard page is missing") }
            return Self.response(page, contentType: "text/html; charset=utf-8")
        }
        routes.add("GET", "\(Self.assetsPath)/{file}") { _, parameters in
            let name = parameters["file"] ?? ""
            guard name != "index.html", let asset = assets.assets[name] else {
                if let problem = assets.problem { throw APIError.internalError(problem) }
                throw APIError.notFound("no dashboard file named '\(name)'")
            }
            return Self.response(asset.bytes, contentType: asset.contentType)
        }
        return routes
    }

    /// The page with the token in place of its placeholder.
    private var pageBytes: [UInt8]? {
        guard let page = assets.assets["index.html"] else { return nil }
        let text = String(decoding: page.bytes, as: UTF8.self)
        return Array(text.replacingOccurrences(of: Self.tokenPlaceholder, with: token.value).utf8)
    }

    private static func response(_ bytes: [UInt8], contentType: String) -> ServerResponse {
        ServerResponse(
            status: 200,
            headers: [
                ("Content-Type", contentType), ("Cache-Control", "no-store"), ("X-Content-Type-Options", "nosniff"),
                ("Referrer-Policy", "no-referrer"), ("X-Frame-Options", "DENY"),
                (
                    "Content-Security-Policy",
                    "default-src 'self'; img-src 'self' data: http: https:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
                ),
            ], body: .bytes(bytes))
    }
}
