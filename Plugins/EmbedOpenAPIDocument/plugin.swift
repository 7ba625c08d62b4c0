import Foundation
import PackagePlugin

/// Puts docs/openapi.yaml into the target as `openAPIDocument`, a string, so nudged serves the document it was
/// built from at `GET /v1/openapi.yaml`, wherever its binary is installed.
@main struct EmbedOpenAPIDocument: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        let document = context.package.directoryURL.appending(path: "docs/openapi.yaml")
        let output = context.pluginWorkDirectoryURL.appending(path: "OpenAPIDocument.swift")
        // A raw string literal holds the YAML as it is, unless it contained `"""#`, which it has no reason to. The
        // literal drops the newline before its closing delimiter, so one is added to keep the file's last one.
        let script = """
            { printf '/// docs/openapi.yaml, embedded at build time.\\nlet openAPIDocument = #\"\"\"\\n'; \
            cat "$1"; printf '\\n\"\"\"#\\n'; } > "$2"
            """
        return [
            .buildCommand(
                displayName: "Embedding docs/openapi.yaml",
                executable: URL(filePath: "/bin/sh"),
                arguments: ["-c", script, "embed", document.path(), output.path()],
                inputFiles: [document],
                outputFiles: [output]
            )
        ]
    }
}
