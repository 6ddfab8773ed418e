import Foundation

/// Plain-text tables and target verdicts.
struct Report {
    private(set) var failures: [String] = []

    static func heading(_ title: String) {
        print("")
        print(title)
        print(String(repeating: "=", count: title.count))
    }

    /// Prints rows as left-aligned first column and right-aligned others.
    static func table(header: [String], rows: [[String]]) {
        let widths = header.indices.map { column in
            ([header] + rows).map { $0.indices.contains(column) ? $0[column].count : 0 }.max() ?? 0
        }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { column, cell in
                let pad = String(repeating: " ", count: widths[column] - cell.count)
                return column == 0 ? cell + pad : pad + cell
            }.joined(separator: "  ")
        }
        print(line(header))
        print(widths.map { String(repeating: "-", count: $0) }.joined(separator: "  "))
        rows.forEach { print(line($0)) }
    }

    /// Prints `PASS` or `FAIL` for a target and remembers failures.
    mutating func target(_ description: String, measured: String, passed: Bool) {
        print("\(passed ? "PASS" : "FAIL")  \(description): \(measured)")
        if !passed { failures.append(description) }
    }

    /// `1234.5` as `1,235 ns`, `1.23 µs`, `4.56 ms` depending on size.
    static func duration(_ nanoseconds: Double) -> String {
        switch nanoseconds {
        case ..<10_000: String(format: "%.0f ns", nanoseconds)
        case ..<10_000_000: String(format: "%.1f µs", nanoseconds / 1_000)
        default: String(format: "%.2f ms", nanoseconds / 1_000_000)
        }
    }

    static func ratio(_ value: Double) -> String {
        value >= 100 ? String(format: "%.0fx", value) : String(format: "%.2fx", value)
    }

    static func spread(_ samples: Samples) -> String {
        "\(duration(samples.lowerQuartile)) .. \(duration(samples.upperQuartile))"
    }
}
