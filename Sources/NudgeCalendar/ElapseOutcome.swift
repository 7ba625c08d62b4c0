/// What a search for the next elapse found.
enum ElapseOutcome: Sendable, Hashable {
    /// Microseconds since the epoch.
    case elapse(Int64)
    /// The expression will not elapse again (systemd: "never").
    case never
    /// systemd gives up with an error (its search loop ran 1000 rounds, or the result is before 1970).
    case failed
}
