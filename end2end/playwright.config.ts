// Playwright runs Debian's Chromium (never a downloaded browser) against a server that
// scripts/test has built and started with the real local Keystone.
import { defineConfig } from "@playwright/test";

export default defineConfig({
  testDir: "./tests",
  timeout: 30_000,
  expect: { timeout: 10_000 },
  workers: 2,
  reporter: "list",
  outputDir: "test-results",
  use: {
    baseURL: process.env.MC_BASE_URL ?? "http://127.0.0.1:3100",
    screenshot: "only-on-failure",
    // A failed test keeps its trace: scripts/test then lists the requests that never got an
    // answer (unanswered.py), so a stalled one names itself in CI's log.
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
