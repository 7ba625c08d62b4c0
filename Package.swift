// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "nudge",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "NudgeCore", targets: ["NudgeCore"]),
        .library(name: "NudgeStore", targets: ["NudgeStore"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-system.git", from: "1.8.1")
    ],
    targets: [
        // Model, ID allocation, the replacement scheduler, events and time input. No I/O.
        .target(name: "NudgeCore"),
        // The durable property-list store: atomic replace, locking, corruption handling.
        .target(
            name: "NudgeStore",
            dependencies: [
                "NudgeCore",
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        .testTarget(name: "NudgeCoreTests", dependencies: ["NudgeCore"]),
        .testTarget(name: "NudgeStoreTests", dependencies: ["NudgeStore", "NudgeCore"]),
    ],
    swiftLanguageModes: [.v6]
)
