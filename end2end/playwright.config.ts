// Playwright runs Debian's Chromium (never a downloaded browser) against a server that
// scripts/test has built and started with the real local Keystone.
import { defineConfig } from "@playwright/test";

export default defineConfig({
  testDir: "./tests",
  timeout: 30_000,
  expect: { timeout: 10_000 },
  workers: 2,
  // No retries: a test that fails has failed (scripts/test prints its trace's findings). The
  // one stall CI met (a page with the non-page policy that never hydrated, issue 33) was
  // Leptos's static-file handler taking a page's headers for the favicon; fixed, the suite
  // passed 8 runs in a row without a retry on 2026-12-04.
  retries: 0,
  // The list on screen; the JSON report lets scripts/test repeat each failure's error last
  // (CI shows the tail of the log).
  reporter: [["list"], ["json", { outputFile: "playwright-report/report.json" }]],
  outputDir: "test-results",
  use: {
    baseURL: process.env.MC_BASE_URL ?? "http://127.0.0.1:3100",
    screenshot: "only-on-failure",
    // A failed test keeps its trace: scripts/test then prints what it holds (failed_traces.py),
    // so a stalled request names itself in CI's log.
    trace: "retain-on-failure",
    launchOptions: {
      executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
      ],
    },
  },
});
