import Hummingbird
import Synchronization

/// Which methods each of the router's routes takes, so that a known path asked with another method is answered 405
/// with `Allow` rather than the router's 404. Learnt from the router itself once the routes are registered: the
/// middleware that answers is added before them, so it holds this and is told later.
final class RouteMethods: Sendable {
    /// Each route as segments (`{id}` stands for any one) and its methods, upper case, in `order`.
    private let table = Mutex<[(segments: [Substring], methods: [String])]>([])
    /// How `Allow` lists them: reads first, then changes, as the contract writes its operations.
    private static let order = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE"]

    func learn(_ routes: [Router<BasicRequestContext>.RouteDescription]) {
        let byPath = Dictionary(grouping: routes, by: \.path.description)
        let learnt = byPath.map { path, routes in
            let methods = routes.map(\.method.rawValue).sorted {
                (Self.order.firstIndex(of: $0) ?? Self.order.count, $0) < (
                    Self.order.firstIndex(of: $1) ?? Self.order.count, $1
                )
            }
            return (Substring(path).split(separator: "/", omittingEmptySubsequences: false), methods)
        }
        table.withLock { $0 = learnt }
    }

    /// The methods `path` (without its query) takes, if it is one of the routes.
    func methods(for path: String) -> [String]? {
        let asked = path.split(separator: "/", omittingEmptySubsequences: false)
        return table.withLock { table in
            table.first { route in
                route.segments.count == asked.count
                    && zip(route.segments, asked).allSatisfy { template, segment in
                        template.hasPrefix("{") || template == segment
                    }
            }?.methods
        }
    }
}
