// Sign-in, header, project switch, sign-out, no-JavaScript sign-in, CSRF and cookie flags,
// in a real browser against the real server and the real local Keystone.
import { expect, type Page } from "@playwright/test";
import { test, signIn } from "./support";

const shot = (page: Page, name: string) =>
  page.screenshot({ path: `test-results/screens/${name}.png`, fullPage: true });

test("alice signs in and sees who and where she is, and her roles", async ({ page, context }) => {
  await signIn(page, "alice", { lands: false });
  await expect(page).toHaveURL(/\/$/);
  await expect(page.locator("#whoami")).toHaveText("alice@demo");
  await expect(page.locator("#roles")).toContainText("kubernetes_admin");
  await expect(page.getByRole("heading", { name: "Klusters in demo" })).toBeVisible();
  await shot(page, "dashboard");

  const cookie = (await context.cookies()).find((c) => c.name === "mc_session");
  expect(cookie, "session cookie").toBeTruthy();
  expect(cookie!.httpOnly).toBe(true);
  expect(cookie!.sameSite).toBe("Lax");
  expect(cookie!.path).toBe("/");
  // The Keystone token (a fernet token, "gAAAAA…") is never in the page.
  expect(await page.content()).not.toContain("gAAAAA");
});

test("a wrong password shows the message and keeps every field but the password", async ({ page }) => {
  await signIn(page, "alice", { password: "wrong-password", lands: false });
  await expect(page.getByText("Invalid user name or password")).toBeVisible();
  await expect(page.getByLabel("User name")).toHaveValue("alice");
  await expect(page.getByLabel("User domain")).toHaveValue("demo");
  await expect(page.getByLabel("Password")).toHaveValue("");
  await shot(page, "login-error");
});

test("the project switcher rescopes the session", async ({ page }) => {
  await signIn(page, "alice", { lands: false });
  await expect(page.locator("#whoami")).toHaveText("alice@demo");
  const select = page.getByLabel("Project", { exact: true });
  await expect(select.locator("option")).toHaveText(["demo", "staging"]);
  await select.selectOption({ label: "staging" });
  await page.getByRole("button", { name: "Switch" }).click();
  await expect(page.getByRole("heading", { name: "Klusters in staging" })).toBeVisible();
  await page.reload();
  await expect(page.getByRole("heading", { name: "Klusters in staging" })).toBeVisible();
});

test("a member sees the member role only", async ({ page }) => {
  await signIn(page, "bob", { lands: false });
  await expect(page.locator("#whoami")).toHaveText("bob@demo");
  await expect(page.locator("#roles")).toHaveText("kubernetes_member");
});

test("sign-out ends the session", async ({ page }) => {
  await signIn(page, "alice", { lands: false });
  await expect(page.locator("#whoami")).toHaveText("alice@demo");
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/login/);
  await expect(page.getByText("You have signed out.")).toBeVisible();
  await page.goto("/");
  await expect(page).toHaveURL(/\/login$/);
});

test.describe("without JavaScript", () => {
  test.use({ javaScriptEnabled: false });

  test("sign-in, switch and sign-out work as plain forms", async ({ page }) => {
    await signIn(page, "alice", { js: false, lands: false });
    await expect(page.locator("#whoami")).toHaveText("alice@demo");
    await page.getByLabel("Project", { exact: true }).selectOption({ label: "staging" });
    await page.getByRole("button", { name: "Switch" }).click();
    await expect(page.getByRole("heading", { name: "Klusters in staging" })).toBeVisible();
    await shot(page, "dashboard-nojs");
    await page.getByRole("button", { name: "Sign out" }).click();
    await expect(page.getByText("You have signed out.")).toBeVisible();
  });

  test("a wrong password comes back with the fields kept", async ({ page }) => {
    await signIn(page, "alice", { password: "nope", js: false, lands: false });
    await expect(page.getByText("Invalid user name or password")).toBeVisible();
    await expect(page.getByLabel("User name")).toHaveValue("alice");
    await expect(page.getByLabel("Project", { exact: true })).toHaveValue("demo");
    await expect(page.getByLabel("Password")).toHaveValue("");
  });
});

test("a cross-site form post is rejected", async ({ page, baseURL }) => {
  // Same server under another host name: a different site for the browser.
  const other = baseURL!.replace("127.0.0.1", "localhost");
  await page.goto(`${other}/healthz`);
  await page.setContent(`<form method="post" action="${baseURL}/api/login">
      <input name="user_name" value="alice"><input name="password" value="alice-secret">
      <input name="user_domain" value="demo"><input name="project" value="demo">
      <button>go</button></form>`);
  const [response] = await Promise.all([
    page.waitForResponse((r) => r.url().endsWith("/api/login")),
    page.getByRole("button", { name: "go" }).click(),
  ]);
  expect(response.status()).toBe(403);
  await expect(page.getByText("Cross-site request rejected")).toBeVisible();
});
