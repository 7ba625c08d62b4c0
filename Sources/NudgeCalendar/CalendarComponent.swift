/// One element of a field's list: a value, a range (`9..17`) or a repetition (`0/15`, `9..17/2`).
///
/// Seconds are kept in microseconds so that fractional seconds (`1.5`) are whole numbers.
package struct CalendarComponent: Sendable, Hashable, Comparable {
    package var start: Int
    /// Last value of a range, or -1 when there is none.
    package var stop: Int = -1
    /// Step of a repetition (1 for a plain range), or 0 when there is none.
    package var step: Int = 0

    package init(start: Int, stop: Int = -1, step: Int = 0) {
        self.start = start
        self.stop = stop
        self.step = step
    }

    package static func < (lhs: CalendarComponent, rhs: CalendarComponent) -> Bool {
        (lhs.start, lhs.stop, lhs.step) < (rhs.start, rhs.stop, rhs.step)
    }
}
