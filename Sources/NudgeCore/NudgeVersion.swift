/// The version of nudge and nudged, which are built and released together: `nudge --version` and `nudged --version`
/// print it. Its API has a version of its own, in docs/openapi.yaml.
public enum NudgeVersion {
    public static let current = "0.2.0-dev"
}
