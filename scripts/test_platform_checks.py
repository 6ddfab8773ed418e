#!/usr/bin/env python3
"""The platform checks fail on what broke a Mac before, and pass on its fix.

Each case writes the code (or the tracked paths) into a temporary folder and runs the check
script on it as CI does. `make check-platforms` runs this before the checks themselves.
"""
import pathlib
import subprocess
import sys
import tempfile
import unittest

SCRIPTS = pathlib.Path(__file__).resolve().parent


def run(script, cwd, *args):
    result = subprocess.run([sys.executable, str(SCRIPTS / script), *args], cwd=cwd, capture_output=True, text=True)
    return result.returncode, result.stdout


class PlatformCallsTests(unittest.TestCase):
    def check(self, source):
        with tempfile.TemporaryDirectory() as folder:
            (pathlib.Path(folder) / "Sample.swift").write_text(source)
            return run("check-platform-calls.py", folder, folder)

    def test_the_raw_socket_helper_as_it_was_fails(self):
        code, out = self.check(
            "import Foundation\n#if canImport(Glibc)\nimport Glibc\n#endif\n"
            "let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)\n"
            "func send(_ b: UnsafeRawBufferPointer) -> Int { Glibc.send(fd, b.baseAddress, b.count, Int32(MSG_NOSIGNAL)) }\n")
        self.assertEqual(code, 1)
        self.assertIn("Sample.swift:5: error: 'SOCK_STREAM.rawValue' compiles on Glibc only", out)
        self.assertIn("Sample.swift:6: error: 'Glibc.send' is Glibc's own spelling", out)
        self.assertIn("Sample.swift:6: error: 'MSG_NOSIGNAL' does not exist on Darwin", out)

    def test_the_same_spelled_per_platform_passes(self):
        code, out = self.check(
            "#if canImport(Glibc)\nimport Glibc\nlet streamType = Int32(SOCK_STREAM.rawValue)\nlet flags = Int32(MSG_NOSIGNAL)\n"
            "#elseif canImport(Darwin)\nimport Darwin\nlet streamType = SOCK_STREAM\nlet flags: Int32 = 0\n#endif\n")
        self.assertEqual(code, 0, out)

    def test_an_else_branch_is_not_the_platform_of_its_if(self):
        code, out = self.check("#if os(Linux)\nlet a = 1\n#else\nlet b = Glibc.close(3)\n#endif\n")
        self.assertEqual(code, 1)
        self.assertIn("Sample.swift:4: error: 'Glibc.close'", out)

    def test_a_bare_trait_condition_fails_and_one_with_its_platform_passes(self):
        code, out = self.check("#if SystemCodecs\nlet all = true\n#endif\n")
        self.assertEqual(code, 1)
        self.assertIn("Sample.swift:1: error: the trait condition 'SystemCodecs' is true on macOS too", out)
        self.assertEqual(self.check("#if os(Linux) && SystemCodecs\nlet all = true\n#endif\n")[0], 0)
        self.assertEqual(self.check("#if UNDERSTUDY_SYSTEM_CODECS\nlet all = true\n#endif\n")[0], 0)

    def test_darwin_calls_need_a_darwin_branch(self):
        self.assertEqual(self.check("#if canImport(Darwin)\nlet r = Darwin.close(3)\n#endif\n")[0], 0)
        self.assertEqual(self.check("#if os(Linux)\nlet r = Darwin.close(3)\n#endif\n")[0], 1)


class PathCaseTests(unittest.TestCase):
    def tracked(self, paths):
        with tempfile.TemporaryDirectory() as folder:
            root = pathlib.Path(folder)
            subprocess.run(["git", "init", "-q"], cwd=root, check=True)
            for path in paths:
                # The index holds both spellings even on a case-insensitive file system.
                blob = subprocess.run(["git", "hash-object", "-w", "--stdin"], cwd=root, input=path, capture_output=True, text=True, check=True).stdout.strip()
                subprocess.run(["git", "update-index", "--add", "--cacheinfo", f"100644,{blob},{path}"], cwd=root, check=True)
            return run("check-path-case.py", root)

    def test_the_cli_folder_as_it_was_fails(self):
        code, out = self.tracked(["Sources/Understudy/Stub.swift", "Sources/understudy/UnderstudyCommand.swift"])
        self.assertEqual(code, 1)
        self.assertIn("differ only in case, and are one path on macOS: Sources/Understudy, Sources/understudy", out)

    def test_files_differing_only_in_case_fail(self):
        self.assertEqual(self.tracked(["docs/Readme.md", "docs/README.md"])[0], 1)

    def test_distinct_names_pass(self):
        code, out = self.tracked(["Sources/Understudy/Stub.swift", "Sources/UnderstudyCLI/UnderstudyCommand.swift"])
        self.assertEqual(code, 0, out)


if __name__ == "__main__":
    unittest.main()
