#!/usr/bin/env python3
"""Checks the demo's output folder: the plots are PNG files, summary.md links every file of the
folder, and a Perfetto trace is there exactly when this build's `streamrace export` exists (the
demo must never leave a stand-in file)."""
import pathlib
import re
import subprocess
import sys

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
out, streamrace = pathlib.Path(sys.argv[1]), sys.argv[2]
for plot in ["loss.png", "throughput.png", "cost/cost.png"]:
    magic = (out / plot).read_bytes()[:8] if (out / plot).exists() else b""
    print(f"{plot}: {'PNG' if magic == PNG_SIGNATURE else 'not a PNG'}")

summary = (out / "summary.md").read_text()
linked = set(re.findall(r"\]\(([^)]+)\)", summary))
files = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
unlinked = [name for name in files if name not in linked]
print(f"summary.md links {len(files) - len(unlinked)} of {len(files)} files"
      + (f"; not linked: {', '.join(unlinked)}" if unlinked else ""))

has_export = subprocess.run([streamrace, "export", "--help"], capture_output=True).returncode == 0
perfetto = out / "trace.perfetto.json"
if has_export:
    print(f"export exists; trace.perfetto.json {'written' if perfetto.exists() else 'MISSING'}")
else:
    print(f"no export command; trace.perfetto.json {'PRESENT (a stand-in?)' if perfetto.exists() else 'absent'}")
