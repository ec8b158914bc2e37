/// The text of each file `AppScaffold` writes.
extension AppScaffold {
    var dependencyDeclaration: String {
        switch dependency {
        case .path(let path): ".package(path: \(Self.quoted(path)))"
        case .url(let url, .from(let version)): ".package(url: \(Self.quoted(url)), from: \(Self.quoted(version)))"
        case .url(let url, .branch(let branch)): ".package(url: \(Self.quoted(url)), branch: \(Self.quoted(branch)))"
        }
    }

    /// A Swift string literal.
    static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    var packageManifest: String {
        let package = Self.quoted(dependency.packageIdentity)
        let exclusion =
            excludedFunctionFiles.isEmpty
            ? "" : "\n            exclude: [\(excludedFunctionFiles.map(Self.quoted).joined(separator: ", "))],"
        return #"""
            // swift-tools-version:6.0
            import PackageDescription

            let package = Package(
                name: "\#(name)",
                platforms: [.macOS(.v15)],
                dependencies: [
                    \#(dependencyDeclaration),
                ],
                targets: [
                    // The app's functions: one file per function in functions/, named like the function and registered
                    // by the plugin in the generated `functionRegistry`.
                    .target(
                        name: "\#(name)Functions",
                        dependencies: [
                            .product(name: "Switchyard", package: \#(package))
                        ],
                        path: "functions",\#(exclusion)
                        plugins: [.plugin(name: "FunctionRegistryPlugin", package: \#(package))]),
                    // `swift run \#(name) serve` serves the app; the executable is Switchyard's command line with these functions.
                    .executableTarget(
                        name: "\#(name)",
                        dependencies: ["\#(name)Functions", .product(name: "SwitchyardCLI", package: \#(package))]),
                    .testTarget(
                        name: "\#(name)Tests",
                        dependencies: [
                            "\#(name)Functions",
                            .product(name: "SwitchyardTesting", package: \#(package)),
                            .product(name: "Switchyard", package: \#(package)),
                        ]),
                ]
            )

            """#
    }

    static let triggers = """
        appId: app

        triggers:
          # A document inserted into app.items: count it in app.stats.
          - name: onNewItem
            type: database
            function: countNewItem
            database: app
            collection: items
            operations: [INSERT]
            fullDocument: true

        # Who may read and write what through the client API and in functions running as the user, in App Services'
        # own terms (system functions and triggers are not held to rules). This default rule lets every user read
        # every collection and write the documents whose owner_id is their own id.
        rules:
          default:
            roles:
              - name: ownerWritesEveryoneReads
                apply_when: {}
                document_filters:
                  write: {owner_id: "%%user.id"}
                read: true
                write: true
                insert: true
                delete: true

        """

    static let values = """
        {
          "greeting": "Hello"
        }

        """

    static let greetFunction = #"""
        import Switchyard

        /// A callable function: answers "<greeting>, <name>!", with the greeting from values.json.
        func greet(_ arguments: [BSON], _ context: FunctionContext) async throws -> BSON {
            let greeting = context.values.get("greeting")?.stringValue ?? "Hello"
            let name = arguments.first?.stringValue ?? "world"
            return .string("\(greeting), \(name)!")
        }

        """#

    static let countFunction = #"""
        import Switchyard

        /// The `onNewItem` trigger's function: counts the items inserted, in app.stats.
        func countNewItem(_ event: ChangeEvent, _ context: FunctionContext) async throws {
            let stats = try context.services.mongodb().db("app").collection("stats")
            try await stats.updateOne(["_id": "items"], ["$inc": ["count": 1]], upsert: true)
            context.log("counted item \(event.documentKey?["_id"]?.extendedJSON(mode: .relaxed) ?? "?")")
        }

        """#

    var mainFile: String {
        #"""
        import Foundation
        import \#(name)Functions
        import SwitchyardCLI

        // Switchyard's command line with this app's functions: `swift run \#(name) serve` serves the app (client API,
        // dashboard, FCM emulator), `serve --watch` rebuilds and restarts it when a function changes, and
        // `swift run \#(name) --help` lists the rest (data import/export, fire, call, logs, outbox, …).
        exit(await CommandLineTool.run(Array(CommandLine.arguments.dropFirst()), registry: functionRegistry))

        """#
    }

    var testFile: String {
        #"""
        import Foundation
        import Switchyard
        import SwitchyardTesting
        import Testing
        import \#(name)Functions

        /// The package's root, which holds triggers.yaml and values.json.
        let appDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path

        /// The app in memory, as SwitchyardTesting runs it: every test starts fresh.
        @Suite struct \#(name)Tests {
            @Test func greetUsesTheConfiguredGreeting() async throws {
                try await TestApp.withApp(configDirectory: appDirectory, registry: functionRegistry) { app in
                    let answer = try await app.call("greet", "Ada", as: FunctionUser(id: "u1"))
                    #expect(answer == "Hello, Ada!")
                }
            }

            @Test func aNewItemIsCounted() async throws {
                try await TestApp.withApp(configDirectory: appDirectory, registry: functionRegistry) { app in
                    // A synthetic event: the trigger's function runs once on it, as the dispatcher would run it.
                    try await app.fire("onNewItem", event: .insert(["_id": 1, "name": "pen"]))
                    let stats = try app.collection("app.stats")
                    #expect(try await stats.findOne(["_id": "items"])?["count"] == 1)

                    // A real write goes through the change log and the trigger runtime.
                    try await app.collection("app.items").insertOne(["_id": 2, "name": "ink"])
                    try await app.awaitIdle()
                    #expect(try await stats.findOne(["_id": "items"])?["count"] == 2)
                    #expect(try await app.invocations(trigger: "onNewItem").count == 2)
                }
            }
        }

        """#
    }

    var readme: String {
        """
        # \(name)

        An App Services–style backend on [Switchyard](\(switchyardLink)): database triggers route changes to Swift
        functions, which get a `context` with values, the database, push messaging and the calling user.

        ```sh
        swift run \(name) serve --watch   # serve the app; a saved function rebuilds and restarts it
        swift test                        # the app's tests: a synthetic event and a real write
        ```

        `serve` prints its address: the dashboard (triggers, live invocations, data, users, push outbox) is at
        `/`, the client API the Realm SDKs speak at `/api/client/v2.0/app/app/…` and an FCM-compatible endpoint
        that records every push. The data lives in `.switchyard`. `swift run \(name) --help` lists the other
        commands, all with this app's functions: `call`, `fire`, `logs`, `outbox`, `data import|export`, ….

        Both need the Swift 6 toolchain and the Debian libraries Switchyard links: `libyaml-dev`,
        `libcurl4-openssl-dev`, `libssl-dev`, `libsqlite3-dev`, `libmicrohttpd-dev` and `pkg-config`.

        - `triggers.yaml`: the triggers (`onNewItem` counts documents inserted into `app.items`), functions and
          data access rules (`rules:`; the default one lets users write only documents whose `owner_id` is theirs).
        - `values.json`: values the functions read with `context.values.get(_:)`.
        - `functions/`: one Swift file per function, named like the function. `greet` is callable
          (`[BSON], FunctionContext → BSON`); `countNewItem` is a database trigger's function
          (`ChangeEvent, FunctionContext`). Files starting with `_` hold shared helpers.
        - `Tests/\(name)Tests`: `TestApp.withApp` runs the app in memory; `fire` runs a trigger's function on a
          synthetic event, `awaitIdle` waits for triggers after real writes.

        Seed the emulator from files checked in beside the app and keep its data between runs:
        `swift run \(name) serve --import seed --export-on-exit seed`, or `swift run \(name) data import seed` while
        it is stopped.

        """
    }

    var switchyardLink: String {
        switch dependency {
        case .path(let path): path
        case .url(let url, _): url
        }
    }
}
