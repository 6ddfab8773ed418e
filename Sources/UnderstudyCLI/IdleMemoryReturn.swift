import Foundation
import Understudy

#if canImport(Glibc)
import Glibc
#endif

/// Gives the heap's free pages back to the system each time the server has been idle (no
/// journal change) for `quiet`, after being busy: a burst of connections leaves freed memory
/// in the allocator's arenas, which glibc keeps mapped until asked (`malloc_trim`). A stub
/// server sits idle between test runs for most of its life; without this it holds its busiest
/// moment's memory forever. Runs until its task is cancelled; does nothing where the C library
/// has no `malloc_trim` (Apple platforms) and in the `UNDERSTUDY_PORTABLE` build.
func returnFreeMemoryWhenIdle(_ journal: Journal, quiet: Duration = .seconds(1)) async {
    guard let trim = mallocTrim else { return }
    var version = journal.version
    while !Task.isCancelled {
        // Busy again: a request came.
        version = await journal.change(after: version)
        // Then quiet for a whole `quiet`. No waiter is registered meanwhile, so requests pay nothing.
        while !Task.isCancelled {
            try? await Task.sleep(for: quiet)
            let now = journal.version
            if now == version { break }
            version = now
        }
        if Task.isCancelled { return }
        _ = trim(0)
    }
}

/// glibc's `malloc_trim`, which its Swift module does not export; `nil` elsewhere.
private let mallocTrim: (@convention(c) (Int) -> Int32)? = {
    #if canImport(Glibc) && !UNDERSTUDY_PORTABLE
    guard let symbol = dlsym(nil, "malloc_trim") else { return nil }
    return unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)
    #else
    return nil
    #endif
}()
