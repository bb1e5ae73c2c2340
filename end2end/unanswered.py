#!/usr/bin/env python3
"""After a failed end-to-end run: the browser's requests that never got an answer, read from
each failed test's Playwright trace (test-results/*/trace.zip), so a stalled request shows up
in CI's log with its URL, its kind and when it started. Usage: unanswered.py [test-results]."""

import json
import pathlib
import sys
import zipfile


def unanswered(trace: pathlib.Path):
    """Yields (started, resource type, method, url, failure) for each request in the trace
    whose response never arrived (status -1)."""
    with zipfile.ZipFile(trace) as z:
        for name in z.namelist():
            if not name.endswith(".network"):
                continue
            for line in z.read(name).decode("utf-8", "replace").splitlines():
                try:
                    snap = json.loads(line).get("snapshot", {})
                except json.JSONDecodeError:
                    continue
                if snap.get("response", {}).get("status", 0) != -1:
                    continue
                req = snap.get("request", {})
                yield (
                    snap.get("startedDateTime", "?"),
                    snap.get("_resourceType", "?"),
                    req.get("method", "?"),
                    req.get("url", "?"),
                    snap.get("response", {}).get("_failureText", ""),
                )


def main() -> int:
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "test-results")
    traces = sorted(root.glob("*/trace.zip"))
    if not traces:
        print(f"no traces under {root}")
    for trace in traces:
        rows = sorted(unanswered(trace))
        print(f"{trace.parent.name}: {len(rows)} request(s) without an answer")
        for started, kind, method, url, failure in rows:
            print(f"  {started} {kind:<10} {method} {url} {failure}".rstrip())
    return 0


if __name__ == "__main__":
    sys.exit(main())
