#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Runs streamrace-check (or clang-tidy-22 with the streamrace module) on an annotated source and
FileChecks the result, like LLVM's check_clang_tidy.py, which Debian does not ship.

  check_streamrace.py [--tool=cli|tidy] [--fix-prefix=P] SOURCE TEMP [TOOL ARGS...] -- FLAGS...

The source's CHECK-MESSAGES lines (in `//` comments, or `#` comments of a .py file) must match
the diagnostics; without any, the run must be silent. CHECK-FIXES lines must match the file after --fix. The CLI must exit 1 on findings and 0
without; clang-tidy's exit status is not about findings.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys


def run(command, **kwargs):
    return subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          **kwargs)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tool", choices=["cli", "tidy"], default="cli")
    parser.add_argument("--bin-dir", required=True)
    parser.add_argument("--lib-dir", required=True)
    parser.add_argument("--llvm-bin-dir", required=True)
    parser.add_argument("--messages-prefix", default="CHECK-MESSAGES")
    parser.add_argument("--fixes-prefix", default="CHECK-FIXES")
    parser.add_argument("source")
    parser.add_argument("temp")
    argv, flags = sys.argv[1:], []
    if "--" in argv:
        split = argv.index("--")
        argv, flags = argv[:split], argv[split + 1:]
    args, tool_args = parser.parse_known_args(argv)

    with open(args.source) as f:
        text = f.read()
    # Keep line numbers, drop the expectations so the tool sees plain code.
    extension = os.path.splitext(args.source)[1]
    comment = "#" if extension == ".py" else "//"
    cleaned = re.sub(re.escape(comment) + r" *CHECK-[A-Z0-9\-]*:[^\r\n]*", comment, text)
    work_dir = args.temp + ".dir"
    shutil.rmtree(work_dir, ignore_errors=True)
    os.makedirs(work_dir)
    work_file = os.path.join(work_dir, os.path.basename(args.source))
    with open(work_file, "w") as f:
        f.write(cleaned)

    if args.tool == "cli":
        command = [os.path.join(args.bin_dir, "streamrace-check"), "--fix", work_file] + \
            tool_args + (["--"] + flags if extension != ".py" else [])
    else:
        command = [os.path.join(args.llvm_bin_dir, "clang-tidy"),
                   "--load=" + os.path.join(args.lib_dir, "libstreamrace-tidy.so"),
                   "--checks=-*,streamrace-*", "--fix"] + tool_args + [work_file, "--"] + flags
    result = run(command)
    output = result.stdout
    messages_file = args.temp + ".messages"
    with open(messages_file, "w") as f:
        f.write(output)

    expects_messages = args.messages_prefix + ":" in text
    warned = re.search(r"warning: .*\[streamrace-", output) is not None
    if args.tool == "cli":
        if "error:" in output:
            sys.exit("the analyzed file does not compile:\n" + output)
        if "not analyzed to the end" in output:
            sys.exit("part of the file was not analyzed (an internal error, or a limit hit):\n" +
                     output)
        wanted_status = 1 if expects_messages else 0
        if result.returncode != wanted_status:
            sys.exit("streamrace-check exited %d, expected %d:\n%s" %
                     (result.returncode, wanted_status, output))
    if not expects_messages:
        if warned:
            sys.exit("expected no findings, got:\n" + output)
    else:
        check = run([os.path.join(args.llvm_bin_dir, "FileCheck"), "-input-file=" + messages_file,
                     args.source, "-check-prefix=" + args.messages_prefix,
                     "-implicit-check-not={{warning|error}}:"])
        if check.returncode != 0:
            sys.exit("messages do not match:\n" + check.stdout + "\n--- output ---\n" + output)

    if args.fixes_prefix + ":" in text:
        check = run([os.path.join(args.llvm_bin_dir, "FileCheck"), "-input-file=" + work_file,
                     args.source, "-check-prefix=" + args.fixes_prefix])
        if check.returncode != 0:
            with open(work_file) as f:
                fixed = f.read()
            sys.exit("fixes do not match:\n" + check.stdout + "\n--- fixed file ---\n" + fixed)


if __name__ == "__main__":
    main()
