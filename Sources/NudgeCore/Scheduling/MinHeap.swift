/// A binary min-heap: O(log n) insert and pop, O(1) peek. The smallest element by `<` comes out first.
struct MinHeap<Element: Comparable & Sendable>: Sendable {
    private var storage: [Element] = []

    var count: Int { storage.count }
    var isEmpty: Bool { storage.isEmpty }
    var min: Element? { storage.first }

    mutating func insert(_ element: Element) {
        storage.append(element)
        siftUp(from: storage.count - 1)
    }

    @discardableResult
    mutating func popMin() -> Element? {
        guard !storage.isEmpty else { return nil }
        storage.swapAt(0, storage.count - 1)
        let smallest = storage.removeLast()
        if !storage.isEmpty { siftDown(from: 0) }
        return smallest
    }

    /// Keeps only the elements for which `isIncluded` holds, in O(n).
    mutating func filter(_ isIncluded: (Element) -> Bool) {
        storage.removeAll { !isIncluded($0) }
        for index in stride(from: storage.count / 2 - 1, through: 0, by: -1) { siftDown(from: index) }
    }

    private mutating func siftUp(from index: Int) {
        var child = index
        while child > 0 {
            let parent = (child - 1) / 2
            guard storage[child] < storage[parent] else { return }
            storage.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(from index: Int) {
        var parent = index
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < storage.count, storage[left] < storage[smallest] { smallest = left }
            if right < storage.count, storage[right] < storage[smallest] { smallest = right }
            if smallest == parent { return }
            storage.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
