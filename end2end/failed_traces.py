#!/usr/bin/env python3
"""After a failed end-to-end run, what each failed test's Playwright trace
(test-results/*/trace.zip) says about the page: every document it loaded (status and
Content-Security-Policy), the console's errors and warnings, and the requests that never got
an answer (URL, kind, when they started, why they failed). Then, last (CI shows the tail of
its log), each failed test's title and the first lines of its error, read from Playwright's
JSON report. Usage: failed_traces.py [test-results] [report.json]."""

import json
import pathlib
import re
import sys
import zipfile


def events(trace: pathlib.Path, suffix: str):
    """Yields each JSON event of the trace's files ending in `suffix`."""
    with zipfile.ZipFile(trace) as z:
        for name in z.namelist():
            if not name.endswith(suffix):
                continue
            for line in z.read(name).decode("utf-8", "replace").splitlines():
                try:
                    yield json.loads(line)
                except json.JSONDecodeError:
                    continue


def header(headers, name: str) -> str:
    """The value of header `name` in a trace's list of {name, value}, or '-'."""
    values = [h.get("value", "") for h in headers or [] if h.get("name", "").lower() == name]
    return " | ".join(values) if values else "-"


def network(trace: pathlib.Path):
    """Returns (documents, unanswered): each document response as (started, status, url,
    CSP), and each request whose response never arrived (status -1) as (started, resource
    type, method, url, failure)."""
    documents, unanswered = [], []
    for event in events(trace, ".network"):
        snap = event.get("snapshot", {})
        req, res = snap.get("request", {}), snap.get("response", {})
        started = snap.get("startedDateTime", "?")
        if res.get("status", 0) == -1:
            unanswered.append(
                (started, snap.get("_resourceType", "?"), req.get("method", "?"),
                 req.get("url", "?"), res.get("_failureText", ""))
            )
        elif snap.get("_resourceType") == "document":
            csp = header(res.get("headers"), "content-security-policy")
            documents.append((started, res.get("status", "?"), req.get("url", "?"), csp[:90]))
    return sorted(documents), sorted(unanswered)


def console(trace: pathlib.Path):
    """The console's errors and warnings in the trace, in order (at most 20)."""
    found = []
    for event in events(trace, ".trace"):
        if event.get("type") == "console" and event.get("messageType") in ("error", "warning"):
            found.append(f"{event.get('messageType')}: {str(event.get('text', ''))[:200]}")
    return found[:20]


def failures(report: pathlib.Path):
    """Yields (title, status, first error lines) for each failed attempt in the JSON report
    (a test that passed on its retry says so)."""
    def walk(suite, path):
        for child in suite.get("suites", []):
            yield from walk(child, path + [child.get("title", "")])
        for spec in suite.get("specs", []):
            for test in spec.get("tests", []):
                results = test.get("results", [])
                passed_later = bool(results) and results[-1].get("status") == "passed"
                for result in results:
                    if result.get("status") in ("failed", "timedOut"):
                        error = (result.get("error") or {}).get("message", "")
                        error = re.sub(r"\x1b\[[0-9;]*m", "", error)
                        lines = [l for l in error.splitlines() if l.strip()][:8]
                        where = " > ".join(p for p in path + [spec.get("title", "")] if p)
                        status = result.get("status")
                        yield where, f"{status} (passed on retry)" if passed_later else status, lines
    data = json.loads(report.read_text())
    for suite in data.get("suites", []):
        yield from walk(suite, [suite.get("title", "")])


def main() -> int:
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "test-results")
    traces = sorted(root.glob("*/trace.zip"))
    if not traces:
        print(f"no traces under {root}")
    for trace in traces:
        documents, rows = network(trace)
        print(f"{trace.parent.name}:")
        for started, status, url, csp in documents:
            print(f"  document {started} {status} {url} csp={csp}")
        for line in console(trace):
            print(f"  console {line}")
        print(f"  {len(rows)} request(s) without an answer")
        for started, kind, method, url, failure in rows[:15]:
            print(f"  {started} {kind:<10} {method} {url} {failure}".rstrip())
    # The JSON reporter's file as playwright.config.ts names it, beside test-results/.
    default = root.parent / "playwright-report" / "report.json"
    report = pathlib.Path(sys.argv[2]) if len(sys.argv) > 2 else default
    if report.exists():
        print("--- failed attempts")
        for where, status, lines in failures(report):
            print(f"{status}: {where}")
            for line in lines:
                print(f"    {line[:220]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
