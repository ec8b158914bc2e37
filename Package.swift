// swift-tools-version:6.0
import PackageDescription

/// The `switchyard` executable carries the Swift runtime and Foundation inside instead of loading them as shared
/// libraries: an idle `switchyard serve` then maps only the parts it uses (dead-stripped, no symbol binding or
/// relocation of a dozen libraries at start), about 6 MB less resident memory. Linked by lld for compact relative
/// relocations (`pack-relative-relocs`, which gold lacks). `-static-stdlib` here applies to linking only, so the
/// libraries Foundation's archives need are named (the shared libraries bring their own).
let switchyardLinkerSettings: [LinkerSetting] = [
    .unsafeFlags(
        ["-static-stdlib", "-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs"],
        .when(platforms: [.linux])),
    .linkedLibrary("FoundationInternationalization", .when(platforms: [.linux])),
    .linkedLibrary("_FoundationICU", .when(platforms: [.linux])),
    .linkedLibrary("CoreFoundation", .when(platforms: [.linux])),
    .linkedLibrary("_FoundationCShims", .when(platforms: [.linux])),
    .linkedLibrary("_FoundationCollections", .when(platforms: [.linux])),
]

let package = Package(
    name: "Switchyard",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "BSON", targets: ["BSON"]),
        .library(name: "DocumentStore", targets: ["DocumentStore"]),
        .library(name: "Messaging", targets: ["Messaging"]),
        .library(name: "Switchyard", targets: ["Switchyard"]),
        .library(name: "SwitchyardServer", targets: ["SwitchyardServer"]),
        .library(name: "SwitchyardTesting", targets: ["SwitchyardTesting"]),
        .executable(name: "switchyard", targets: ["switchyard"]),
        // The `switchyard` command line, for apps made by `switchyard init` to run with their own functions.
        .library(name: "SwitchyardCLI", targets: ["SwitchyardCLI"]),
        // For apps made by `switchyard init`: their Functions target registers its files the way ours does.
        .plugin(name: "FunctionRegistryPlugin", targets: ["FunctionRegistryPlugin"]),
    ],
    targets: [
        // System libraries: one per Debian package, each with a prefixed shim for what Swift cannot import.
        .systemLibrary(
            name: "CYAML", path: "Sources/CYAML", pkgConfig: "yaml-0.1",
            providers: [.apt(["libyaml-dev"])]),
        .systemLibrary(
            name: "CCurl", path: "Sources/CCurl", pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(
            name: "COpenSSL", path: "Sources/COpenSSL", pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"])]),
        .systemLibrary(
            name: "CSQLite", path: "Sources/CSQLite", pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(
            name: "CMicroHTTPD", path: "Sources/CMicroHTTPD", pkgConfig: "libmicrohttpd",
            providers: [.apt(["libmicrohttpd-dev"])]),
        // Regular expressions: the library MongoDB itself evaluates `$regex` with, with its match limits.
        .systemLibrary(
            name: "CPCRE2", path: "Sources/CPCRE2", pkgConfig: "libpcre2-8",
            providers: [.apt(["libpcre2-dev"])]),
        // zlib, for the MongoDB wire protocol's compressed messages.
        .systemLibrary(name: "CZlib", path: "Sources/CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // libpq, for the PostgreSQL storage engine.
        .systemLibrary(name: "CLibPQ", path: "Sources/CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),

        .target(name: "BSON"),
        .target(name: "DocumentStore", dependencies: ["BSON", "CSQLite", "CPCRE2", "CLibPQ"]),
        .target(name: "Messaging", dependencies: ["BSON", "CCurl", "COpenSSL"]),
        // Listening sockets and peer addresses, shared by the HTTP and the MongoDB wire protocol servers.
        .target(name: "Sockets"),
        // The MongoDB wire protocol server: framing, connections, commands, cursors, sessions; it calls the store.
        .target(name: "MongoWire", dependencies: ["BSON", "DocumentStore", "CZlib", "COpenSSL", "Sockets"]),
        .target(name: "Switchyard", dependencies: ["BSON", "DocumentStore", "Messaging", "CYAML"]),
        .target(
            name: "SwitchyardServer",
            dependencies: [
                "BSON", "DocumentStore", "Messaging", "Switchyard", "MongoWire", "Sockets", "CMicroHTTPD", "COpenSSL",
            ],
            // The dashboard's HTML, CSS and JavaScript, served as they are (no build step).
            resources: [.copy("Dashboard/Assets")]),
        // Every command (serve, data, init, …); the executable only links it with the app's functions.
        .target(
            name: "SwitchyardCLI",
            dependencies: ["BSON", "DocumentStore", "Messaging", "MongoWire", "Switchyard", "SwitchyardServer"]),
        .executableTarget(
            name: "switchyard", dependencies: ["SwitchyardCLI", "Functions"],
            linkerSettings: switchyardLinkerSettings),
        // For users' own tests: an in-memory app, synthetic events, awaiting idle, the outbox.
        .target(name: "SwitchyardTesting", dependencies: ["Switchyard", "BSON", "DocumentStore", "Messaging"]),

        // The app's functions: one file per function in functions/, registered by the generated `functionRegistry`.
        .target(
            name: "Functions", dependencies: ["Switchyard"], path: "functions",
            plugins: ["FunctionRegistryPlugin"]),
        .plugin(name: "FunctionRegistryPlugin", capability: .buildTool(), dependencies: ["FunctionRegistryGenerator"]),
        .executableTarget(name: "FunctionRegistryGenerator"),
        .executableTarget(
            name: "switchyard-bench",
            dependencies: [
                "BSON", "DocumentStore", "Messaging", "Switchyard", "SwitchyardServer", "CSQLite", "CLibPQ",
                "TestSupport",
                "Functions",
            ],
            path: "Benchmarks", exclude: ["push", "wire", "README.md"]),

        .testTarget(name: "BSONTests", dependencies: ["BSON"]),
        .testTarget(name: "MongoWireTests", dependencies: ["MongoWire", "BSON", "DocumentStore", "TestSupport"]),
        .testTarget(name: "DocumentStoreTests", dependencies: ["DocumentStore", "Messaging", "store-crash-writer", "TestSupport"]),
        // Child process of the crash-safety test: writes and acknowledges until killed.
        .executableTarget(
            name: "store-crash-writer", dependencies: ["BSON", "DocumentStore"], path: "Tests/Fixtures/StoreCrashWriter"
        ),
        // TestSupport serves the HTTP client's tests on loopback (libmicrohttpd); Messaging itself never links it.
        .testTarget(name: "MessagingTests", dependencies: ["Messaging", "BSON", "TestSupport", "COpenSSL"]),
        .testTarget(
            name: "SwitchyardTests",
            dependencies: ["Switchyard", "BSON", "DocumentStore", "Messaging", "TestSupport", "trigger-crash-runner"],
            exclude: ["Fixtures"]),
        // Child process of the trigger reliability test: runs triggers over a stream of writes until killed.
        .executableTarget(
            name: "trigger-crash-runner", dependencies: ["BSON", "DocumentStore", "Switchyard"],
            path: "Tests/Fixtures/TriggerCrashRunner"),
        .testTarget(
            name: "SwitchyardServerTests",
            dependencies: [
                "SwitchyardServer", "Switchyard", "BSON", "DocumentStore", "Messaging", "Functions", "TestSupport",
                "Sockets",
            ]),
        .testTarget(name: "FunctionsTests", dependencies: ["Functions", "Switchyard", "BSON"]),
        // The example app end to end, through SwitchyardTesting as a user's tests would.
        .testTarget(
            name: "ExampleAppTests",
            dependencies: ["Functions", "SwitchyardTesting", "Switchyard", "BSON", "DocumentStore", "Messaging"]),
        .testTarget(
            name: "SwitchyardTestingTests",
            dependencies: ["SwitchyardTesting", "Switchyard", "BSON", "DocumentStore", "Messaging"]),
        .testTarget(name: "FunctionRegistryGeneratorTests", dependencies: ["FunctionRegistryGenerator"]),
        // What several test targets (and the benchmarks) share: loopback HTTP servers on libmicrohttpd, an admin
        // API client that survives server restarts, a throwaway PostgreSQL server.
        .target(
            name: "TestSupport", dependencies: ["BSON", "CMicroHTTPD", "Messaging", "CLibPQ"], path: "Tests/TestSupport"
        ),
        // Runs the built `switchyard` binary as a user would; `swift build --build-tests` builds it too.
        .testTarget(
            name: "SwitchyardCLITests",
            dependencies: ["BSON", "DocumentStore", "Functions", "Messaging", "Switchyard", "TestSupport"]),
        .testTarget(
            name: "SystemLibraryTests",
            dependencies: ["CYAML", "CCurl", "COpenSSL", "CSQLite", "CMicroHTTPD"]),
    ]
)
