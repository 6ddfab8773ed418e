import Foundation

/// HTTP dates: written as IMF-fixdate, `Sun, 06 Nov 1994 08:49:37 GMT`;
/// read in that form and in the two obsolete ones, as a recipient must.
///
/// Done by hand with `timegm`/`gmtime_r` rather than `DateFormatter`, which is slow to make
/// and not safe to share between threads on every platform.
package enum HTTPDate {
    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// `date` as IMF-fixdate, to the whole second below.
    package static func format(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let year = String(parts.tm_year + 1900)
        return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(year) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }

    /// The date `text` names in any of the three forms; `nil` when it is none of them.
    package static func parse(_ text: String) -> Date? {
        // Every form holds a day of the month, a month name, a year and hh:mm:ss, in some order;
        // the weekday is redundant and ignored.
        let tokens = text.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "-" || $0 == "\t" })
        var day: Int32?, month: Int32?, year: Int32?, clock: [Int32]?
        for token in tokens {
            if token.contains(":") {
                let fields = token.split(separator: ":").compactMap { Int32($0) }
                guard fields.count == 3 else { return nil }
                clock = fields
            } else if let number = Int32(token) {
                if token.count <= 2, day == nil {
                    day = number
                } else if year == nil {
                    year = token.count == 2 ? (number < 70 ? 2000 + number : 1900 + number) : number
                } else {
                    return nil
                }
            } else if let index = months.firstIndex(where: { $0.caseInsensitiveCompare(token) == .orderedSame }) {
                month = Int32(index)
            }
        }
        guard let day, let month, let year, let clock, (1...31).contains(day), (0...23).contains(clock[0]),
              (0...59).contains(clock[1]), (0...60).contains(clock[2])
        else { return nil }
        var parts = tm()
        parts.tm_year = year - 1900
        parts.tm_mon = month
        parts.tm_mday = day
        parts.tm_hour = clock[0]
        parts.tm_min = clock[1]
        parts.tm_sec = clock[2]
        return Date(timeIntervalSince1970: TimeInterval(timegm(&parts)))
    }
}
