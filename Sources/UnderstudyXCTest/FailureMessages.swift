import Understudy

/// The failure messages of the assertions, as functions that return the message or `nil` when
/// the assertion holds. They live in the `Understudy` module so that `UnderstudyTesting`'s
/// expectations share them; this name keeps `FailureMessages` reachable from
/// `import UnderstudyXCTest` alone.
package typealias FailureMessages = Understudy.FailureMessages
