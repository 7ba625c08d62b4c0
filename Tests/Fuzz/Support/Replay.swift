import Foundation

/// The `main` of every fuzz target. Built with `-sanitize=fuzzer -DFUZZING` (`scripts/fuzz`), it hands the target to
/// libFuzzer with the command line. Built as usual, it replays: it runs the target once on each file it is given (or
/// each file in a directory given), and fails on any input that takes over 1 s. A crash is a crash either way.
public enum Fuzz {
    public typealias Target = @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt

    public static func main(_ name: String, _ target: Target) -> Never {
        #if FUZZING
            var argc = CommandLine.argc
            var argv = CommandLine.unsafeArgv
            exit(LLVMFuzzerRunDriver(&argc, &argv, target))
        #else
            replay(name, target)
        #endif
    }

    static func replay(_ name: String, _ target: Target) -> Never {
        let paths = CommandLine.arguments.dropFirst()
        guard !paths.isEmpty else {
            FileHandle.standardError.write(Data("usage: \(name) FILE-OR-DIRECTORY...\n".utf8))
            exit(64)
        }
        var count = 0
        var slowest = (Duration.zero, "")
        for file in paths.flatMap(files) {
            guard let bytes = FileManager.default.contents(atPath: file) else {
                FileHandle.standardError.write(Data("\(name): cannot read \(file)\n".utf8))
                exit(1)
            }
            let started = ContinuousClock.now
            _ = [UInt8](bytes).withUnsafeBufferPointer { target($0.baseAddress, $0.count) }
            let took = ContinuousClock.now - started
            if took > slowest.0 { slowest = (took, file) }
            count += 1
        }
        print("\(name): \(count) inputs replayed; slowest \(slowest.0) (\(slowest.1))")
        exit(slowest.0 > .seconds(1) ? 1 : 0)
    }

    private static func files(_ path: String) -> [String] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
            return [path]
        }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        return names.sorted().map { path + "/" + $0 }
    }
}

#if FUZZING
    /// libFuzzer's driver, for a program with a `main` of its own (SwiftPM gives every executable one).
    @_silgen_name("LLVMFuzzerRunDriver")
    func LLVMFuzzerRunDriver(
        _ argc: UnsafeMutablePointer<CInt>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
        _ target: Fuzz.Target
    ) -> CInt
#endif

/// The bytes libFuzzer hands a target.
public func fuzzInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [UInt8] {
    guard let data, size > 0 else { return [] }
    return Array(UnsafeBufferPointer(start: data, count: size))
}
