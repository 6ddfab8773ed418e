import Foundation
import Understudy

/// A HAR 1.2 `log`: who wrote it and the entries, oldest first.
public struct HARLog: Sendable, Hashable, Codable {
    /// The HAR versions this reader accepts.
    public static let supportedVersions = ["1.1", "1.2"]

    /// The format version; written as `1.2`.
    public var version: String
    /// The tool that wrote it.
    public var creator: HARCreator
    /// The browser that made the requests, if any.
    public var browser: HARCreator?
    /// Pages the entries belong to, if any.
    public var pages: [HARPage]?
    /// The exchanges, oldest first.
    public var entries: [HAREntry]
    /// A comment.
    public var comment: String?
    /// Members this model does not know (`_custom` fields), kept for the round trip.
    public var extras: [String: JSONValue]

    /// Creates a log.
    /// - Parameters:
    ///   - version: the format version.
    ///   - creator: the tool that wrote it.
    ///   - browser: the browser that made the requests, when one did.
    ///   - pages: the pages the entries belong to, when a browser recorded them.
    ///   - entries: the exchanges.
    ///   - comment: a comment.
    ///   - extras: members this model does not know, kept for the round trip.
    public init(version: String = "1.2", creator: HARCreator = .understudy, browser: HARCreator? = nil, pages: [HARPage]? = nil,
                entries: [HAREntry], comment: String? = nil, extras: [String: JSONValue] = [:]) {
        self.version = version
        self.creator = creator
        self.browser = browser
        self.pages = pages
        self.entries = entries
        self.comment = comment
        self.extras = extras
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case version, creator, browser, pages, entries, comment
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard let version = try container.decodeIfPresent(String.self, forKey: .version) else {
            throw HARError.invalid(decoder.codingPath + [CodingKeys.version], "missing; expected \"1.2\"")
        }
        guard Self.supportedVersions.contains(version) else {
            throw HARError.invalid(decoder.codingPath + [CodingKeys.version], "unsupported HAR version '\(version)'; expected 1.2 or 1.1")
        }
        guard container.contains(.entries) else {
            throw HARError.invalid(decoder.codingPath + [CodingKeys.entries], "missing; expected an array of entries")
        }
        self.version = version
        creator = try container.decodeIfPresent(HARCreator.self, forKey: .creator) ?? HARCreator(name: "unknown", version: "")
        browser = try container.decodeIfPresent(HARCreator.self, forKey: .browser)
        pages = try container.decodeIfPresent([HARPage].self, forKey: .pages)
        entries = try container.decode([HAREntry].self, forKey: .entries)
        comment = try container.decodeIfPresent(String.self, forKey: .comment)
        extras = try decoder.extras(known: Set(CodingKeys.allCases.map(\.rawValue)))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(version, forKey: .version)
        try container.encode(creator, forKey: .creator)
        try container.encodeIfPresent(browser, forKey: .browser)
        try container.encodeIfPresent(pages, forKey: .pages)
        try container.encode(entries, forKey: .entries)
        try container.encodeIfPresent(comment, forKey: .comment)
        try encoder.encodeExtras(extras)
    }
}

/// The `creator` or `browser` of a log.
public struct HARCreator: Sendable, Hashable, Codable {
    /// Its name.
    public var name: String
    /// Its version.
    public var version: String
    /// A comment.
    public var comment: String?

    /// Creates a creator.
    public init(name: String, version: String, comment: String? = nil) {
        self.name = name
        self.version = version
        self.comment = comment
    }

    /// Understudy itself.
    public static let understudy = HARCreator(name: "Understudy", version: "1.0")

    enum CodingKeys: String, CodingKey { case name, version, comment }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.string(.name, default: "")
        version = try container.string(.version, default: "")
        comment = try container.decodeIfPresent(String.self, forKey: .comment)
    }
}

/// A page of a browser session, which entries may refer to by `pageref`.
public struct HARPage: Sendable, Hashable, Codable {
    /// When the page started loading (ISO 8601).
    public var startedDateTime: String
    /// Its id, as entries' `pageref` give it.
    public var id: String
    /// Its title.
    public var title: String
    /// `onContentLoad` and `onLoad`, in milliseconds, as written.
    public var pageTimings: [String: JSONValue]
    /// A comment.
    public var comment: String?

    /// Creates a page.
    public init(startedDateTime: String, id: String, title: String, pageTimings: [String: JSONValue] = [:], comment: String? = nil) {
        self.startedDateTime = startedDateTime
        self.id = id
        self.title = title
        self.pageTimings = pageTimings
        self.comment = comment
    }

    enum CodingKeys: String, CodingKey { case startedDateTime, id, title, pageTimings, comment }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        startedDateTime = try container.string(.startedDateTime, default: "")
        id = try container.string(.id, default: "")
        title = try container.string(.title, default: "")
        pageTimings = try container.decodeIfPresent([String: JSONValue].self, forKey: .pageTimings) ?? [:]
        comment = try container.decodeIfPresent(String.self, forKey: .comment)
    }
}
