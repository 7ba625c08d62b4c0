// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "nudge",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "nudged", targets: ["nudged"]),
        .executable(name: "nudge", targets: ["nudge"]),
        .library(name: "NudgeCore", targets: ["NudgeCore"]),
        .library(name: "NudgeStore", targets: ["NudgeStore"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-system.git", from: "1.8.1"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-collections.git", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-openapi-generator.git", from: "1.14.3"),
        .package(url: "https://github.com/apple/swift-openapi-runtime.git", from: "1.13.4"),
        .package(url: "https://github.com/hummingbird-project/swift-openapi-hummingbird.git", from: "2.1.0"),
        .package(url: "https://github.com/swift-server/swift-openapi-async-http-client.git", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift.git", from: "0.2.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
        .package(url: "https://github.com/apple/swift-configuration.git", from: "1.4.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
    ],
    targets: [
        // systemd calendar expressions (`CalendarSpec`: parsing, normalized form, next elapse), on time zone rules read
        // from the TZif files in /usr/share/zoneinfo. Nothing else of ours.
        .target(name: "NudgeCalendar"),
        // Model, ID allocation, the replacement scheduler, events, time input, iCalendar. No I/O.
        .target(
            name: "NudgeCore",
            dependencies: [
                "NudgeCalendar", "NudgeRecurrence", .product(name: "HeapModule", package: "swift-collections"),
            ]
        ),
        // The one place that talks to the system: system calls with typed errors, threads, Unix socket addresses,
        // a clock that sleeps on NIO's event loops.
        .target(
            name: "NudgeSystem",
            dependencies: [
                "CLinux",
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        // The durable property-list store: atomic replace, locking, corruption handling.
        .target(
            name: "NudgeStore",
            dependencies: [
                "NudgeCore", "NudgeSystem",
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        // What the API's generated code (in NudgeDaemon and nudge, from docs/openapi.yaml) leaves to us: one type
        // for instants, the item patch, JSON settings, where the socket is.
        .target(
            name: "NudgeAPI",
            dependencies: [
                "NudgeCore", "NudgeSystem", .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
            ]
        ),
        // The wire types of docs/openapi.yaml, generated once for nudged's server and nudge's client (the generator's
        // shared-types layout). Only generated code: its public imports warn where a generated file uses none of
        // them (the generator writes eight files of types, some empty), so warnings are silenced here and nowhere else.
        .target(
            name: "NudgeAPITypes",
            dependencies: ["NudgeAPI", .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime")],
            swiftSettings: [.unsafeFlags(["-suppress-warnings"])],
            plugins: [.plugin(name: "OpenAPIGenerator", package: "swift-openapi-generator")]
        ),
        // libical, the reference RFC 5545 implementation, whose recurrence iterator evaluates RRULEs (Debian:
        // libical-dev), and nudge's wrapper of it.
        .systemLibrary(name: "CICal", pkgConfig: "libical", providers: [.apt(["libical-dev"])]),
        .target(name: "NudgeRecurrence", dependencies: ["CICal", "NudgeCalendar"]),
        // Collection folders other programs keep (vdir: todoman, khal, vdirsyncer), read as tasks.
        .target(
            name: "NudgeVdir",
            dependencies: [
                "NudgeCore", "NudgeCalendar", "NudgeSystem",
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // libsystemd, for the journal sink and the session bus (Debian: libsystemd-dev).
        .systemLibrary(name: "CSystemd", pkgConfig: "libsystemd", providers: [.apt(["libsystemd-dev"])]),
        // Where reminders go: the sink protocol and its implementations (journal, desktop, command, log, record).
        .target(
            name: "NudgeSinks",
            dependencies: [
                "NudgeCore", "NudgeSystem", "CSystemd", "CLinux",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        // Linux headers Glibc's module map leaves out (timerfd, eventfd, pidfd_open).
        .systemLibrary(name: "CLinux"),
        // The service: timer driver, store writer, API server.
        .target(
            name: "NudgeDaemon",
            dependencies: [
                "NudgeCore", "NudgeCalendar", "NudgeStore", "NudgeSinks", "NudgeAPI", "NudgeAPITypes", "NudgeSystem",
                "NudgeVdir", "CLinux",
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIHummingbird", package: "swift-openapi-hummingbird"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            plugins: [
                .plugin(name: "OpenAPIGenerator", package: "swift-openapi-generator"), "EmbedOpenAPIDocument",
            ]
        ),
        // docs/openapi.yaml as a string in NudgeDaemon, for GET /v1/openapi.yaml.
        .plugin(name: "EmbedOpenAPIDocument", capability: .buildTool()),
        .executableTarget(name: "nudged", dependencies: ["NudgeDaemon"]),
        .executableTarget(
            name: "nudge",
            dependencies: [
                "NudgeCore", "NudgeCalendar", "NudgeAPI", "NudgeAPITypes", "NudgeSystem", "CLinux",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIAsyncHTTPClient", package: "swift-openapi-async-http-client"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            plugins: [.plugin(name: "OpenAPIGenerator", package: "swift-openapi-generator")]
        ),
        // Fuzz targets, one per decoder of untrusted bytes (scripts/fuzz): libFuzzer's entry point when built with
        // -sanitize=fuzzer -DFUZZING; built as usual, a replay of the inputs named (Tests/Fuzz/Corpus/<target>).
        .target(name: "FuzzSupport", path: "Tests/Fuzz/Support"),
        .executableTarget(name: "fuzz-store", dependencies: ["NudgeStore", "FuzzSupport"], path: "Tests/Fuzz/Store"),
        .executableTarget(
            name: "fuzz-request",
            dependencies: [
                "NudgeDaemon", "FuzzSupport",
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ],
            path: "Tests/Fuzz/Request"
        ),
        .executableTarget(
            name: "fuzz-time-input",
            dependencies: ["NudgeCore", "FuzzSupport"],
            path: "Tests/Fuzz/TimeInput"
        ),
        .executableTarget(
            name: "fuzz-calendar",
            dependencies: ["NudgeCalendar", "FuzzSupport"],
            path: "Tests/Fuzz/Calendar"
        ),
        .executableTarget(
            name: "fuzz-icalendar",
            dependencies: ["NudgeCore", "NudgeCalendar", "FuzzSupport"],
            path: "Tests/Fuzz/ICalendar"
        ),
        // Whole-daemon figures (scripts/bench): builds stores of given sizes and measures the release nudged on them.
        .executableTarget(
            name: "nudge-bench",
            dependencies: [
                "NudgeStore", "NudgeCore", "NudgeCalendar",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Benchmarks/DaemonBench"
        ),
        // The floor nudge-bench edit-floor measures a durable edit against: Hummingbird, an append, an fdatasync.
        .executableTarget(
            name: "nudge-floor",
            dependencies: [
                "NudgeSystem",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            path: "Benchmarks/EditFloor"
        ),
        // What the tests share: seeded randomness, the API called in-process, and the test doubles (a store in
        // memory, store faults, a timer, a clock and a sink that record, a log that keeps its lines, a notification
        // server) the unit tests put in place of the real parts.
        .target(
            name: "NudgeTestSupport",
            dependencies: [
                "NudgeCore", "NudgeStore", "NudgeSinks", "NudgeDaemon", "NudgeAPI", "NudgeAPITypes",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            path: "Tests/Support"
        ),
        .testTarget(
            name: "NudgeCalendarTests",
            dependencies: [
                "NudgeCalendar", "NudgeTestSupport", .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "NudgeCoreTests",
            dependencies: [
                "NudgeCore", "NudgeCalendar", "NudgeRecurrence", "NudgeTestSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "NudgeStoreTests",
            dependencies: ["NudgeStore", "NudgeCore", "NudgeCalendar"],
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "NudgeVdirTests",
            dependencies: [
                "NudgeVdir", "NudgeCore", "NudgeCalendar", "NudgeSystem", "NudgeTestSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "NudgeSinksTests",
            dependencies: [
                "NudgeSinks", "NudgeSystem", "NudgeCore", "CLinux", "NudgeTestSupport",
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "NudgeDaemonTests",
            dependencies: [
                "NudgeDaemon", "NudgeStore", "NudgeCore", "NudgeAPI", "NudgeAPITypes", "NudgeSinks", "NudgeTestSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ]
        ),
        // Runs the real nudged and nudge binaries; `swift build` first, so both exist.
        .testTarget(
            name: "IntegrationTests",
            dependencies: [
                "CLinux",
                "NudgeSystem",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
