import Foundation

/// Reads the text of a ``JSONPath`` into its steps, one character at a time.
struct JSONPathReader {
    let text: String
    private let characters: [Character]
    private var position = 0

    init(text: String) {
        self.text = text
        self.characters = Array(text)
    }

    private func fail(_ expected: String) -> JSONPath.ParseError {
        let found = position < characters.count ? "'\(characters[position])'" : "the end"
        return JSONPath.ParseError(description: "JSONPath '\(text)': found \(found) at position \(position + 1); expected \(expected)")
    }

    private var current: Character? { position < characters.count ? characters[position] : nil }

    private mutating func skipSpaces() {
        while current == " " { position += 1 }
    }

    private mutating func take(_ literal: String) -> Bool {
        let expected = Array(literal)
        guard position + expected.count <= characters.count, Array(characters[position..<position + expected.count]) == expected else { return false }
        position += expected.count
        return true
    }

    mutating func readPath() throws(JSONPath.ParseError) -> [JSONPath.Step] {
        guard take("$") else { throw fail("'$' to start the path, as in $.images[0]") }
        let steps = try readSteps()
        guard current == nil else { throw fail("'.', '..' or '[' to continue the path") }
        return steps
    }

    /// Steps until something that cannot continue a path (the end, a space, `)`, an operator).
    private mutating func readSteps() throws(JSONPath.ParseError) -> [JSONPath.Step] {
        var steps: [JSONPath.Step] = []
        while let character = current {
            if take("..") {
                if take("*") { steps.append(.deep(.wildcard)); continue }
                if current == "[" { steps.append(.deep(try readBracket())); continue }
                steps.append(.deep(.name(try readName())))
            } else if character == "." {
                position += 1
                if take("*") { steps.append(.wildcard); continue }
                steps.append(.name(try readName()))
            } else if character == "[" {
                steps.append(try readBracket())
            } else {
                break
            }
        }
        return steps
    }

    private mutating func readName() throws(JSONPath.ParseError) -> String {
        let start = position
        while let character = current, character.isLetter || character.isNumber || character == "_" || character == "-" || character == "$" || character == "@" {
            position += 1
        }
        guard position > start else { throw fail("a member name") }
        return String(characters[start..<position])
    }

    private mutating func readBracket() throws(JSONPath.ParseError) -> JSONPath.Step {
        position += 1
        skipSpaces()
        defer { position += 1 }
        if take("*") {
            skipSpaces()
            guard current == "]" else { throw fail("']' after '[*'") }
            return .wildcard
        }
        if take("?(") {
            let filter = try readOr()
            skipSpaces()
            guard take(")") else { throw fail("')' to close the filter") }
            skipSpaces()
            guard current == "]" else { throw fail("']' after the filter") }
            return .filter(filter)
        }
        if current == "'" || current == "\"" {
            var names = [try readQuoted()]
            skipSpaces()
            while take(",") {
                skipSpaces()
                names.append(try readQuoted())
                skipSpaces()
            }
            guard current == "]" else { throw fail("']' or ',' after a quoted name") }
            return names.count == 1 ? .name(names[0]) : .names(names)
        }
        let first = readInteger()
        skipSpaces()
        if take(":") {
            skipSpaces()
            let end = readInteger()
            skipSpaces()
            guard current == "]" else { throw fail("']' after a slice such as [1:3]") }
            return .slice(first, end)
        }
        guard let first else { throw fail("an index, a slice, '*', a quoted name or a filter '?(...)'") }
        var indexes = [first]
        while take(",") {
            skipSpaces()
            guard let next = readInteger() else { throw fail("an index after ','") }
            indexes.append(next)
            skipSpaces()
        }
        guard current == "]" else { throw fail("']' after an index") }
        return indexes.count == 1 ? .index(first) : .indexes(indexes)
    }

    private mutating func readInteger() -> Int? {
        let start = position
        if current == "-" { position += 1 }
        while let character = current, character.isASCII, character.isNumber { position += 1 }
        guard let value = Int(String(characters[start..<position])) else {
            position = start
            return nil
        }
        return value
    }

    private mutating func readQuoted() throws(JSONPath.ParseError) -> String {
        guard let quote = current, quote == "'" || quote == "\"" else { throw fail("a quoted name") }
        position += 1
        var value = ""
        while let character = current, character != quote {
            if character == "\\", position + 1 < characters.count {
                position += 1
            }
            value.append(characters[position])
            position += 1
        }
        guard take(String(quote)) else { throw fail("the closing \(quote)") }
        return value
    }

    // MARK: - Filters

    private mutating func readOr() throws(JSONPath.ParseError) -> JSONPath.Filter {
        var filter = try readAnd()
        skipSpaces()
        while take("||") {
            filter = .or(filter, try readAnd())
            skipSpaces()
        }
        return filter
    }

    private mutating func readAnd() throws(JSONPath.ParseError) -> JSONPath.Filter {
        var filter = try readUnary()
        skipSpaces()
        while take("&&") {
            filter = .and(filter, try readUnary())
            skipSpaces()
        }
        return filter
    }

    private mutating func readUnary() throws(JSONPath.ParseError) -> JSONPath.Filter {
        skipSpaces()
        if take("!") { return .not(try readUnary()) }
        if take("(") {
            let inner = try readOr()
            skipSpaces()
            guard take(")") else { throw fail("')' to close the group") }
            return inner
        }
        let left = try readOperand()
        skipSpaces()
        for op in ["==", "!=", "<=", ">=", "=~", "<", ">"] where take(op) {
            skipSpaces()
            let right = try readOperand()
            if op == "=~", case .regex = right {} else if op == "=~" { throw fail("a /regular expression/ after =~") }
            return .compare(left, op, right)
        }
        guard case .literal = left else { return .exists(left) }
        throw fail("a comparison such as @.size > 2")
    }

    private mutating func readOperand() throws(JSONPath.ParseError) -> JSONPath.Operand {
        skipSpaces()
        if take("@") { return .current(try readSteps()) }
        if take("$") { return .root(try readSteps()) }
        if current == "'" || current == "\"" { return .literal(.string(try readQuoted())) }
        if take("/") {
            var pattern = ""
            while let character = current, character != "/" {
                if character == "\\", position + 1 < characters.count, characters[position + 1] == "/" { position += 1 }
                pattern.append(characters[position])
                position += 1
            }
            guard take("/") else { throw fail("the closing / of the regular expression") }
            return .regex(pattern, caseInsensitive: take("i"))
        }
        if take("true") { return .literal(.bool(true)) }
        if take("false") { return .literal(.bool(false)) }
        if take("null") { return .literal(.null) }
        let start = position
        while let character = current, character.isNumber || "-+.eE".contains(character) { position += 1 }
        if position > start, let number = Double(String(characters[start..<position])) { return .literal(.number(number)) }
        position = start
        throw fail("@, $, a string, a number, true, false, null or a /regular expression/")
    }
}
