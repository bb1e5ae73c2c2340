// What several specs share: signing in through the login form, and fresh names.
import { expect, type Page } from "@playwright/test";

/** How to sign in; the defaults are the demo's (password `<user>-secret`, domain and project demo). */
export type SignInOptions = {
  password?: string;
  domain?: string;
  project?: string;
  /** Wait for the login page to hydrate first (false: as a browser without JavaScript). */
  js?: boolean;
  /** Expect to land on the list (false: the caller checks what happened). */
  lands?: boolean;
};

/** Signs `user` in through the login form. */
export async function signIn(page: Page, user = "alice", o: SignInOptions = {}) {
  await page.goto("/login");
  if (o.js ?? true) await page.waitForSelector("body[data-hydrated]");
  await page.getByLabel("User name").fill(user);
  await page.getByLabel("Password").fill(o.password ?? `${user}-secret`);
  await page.getByLabel("User domain").fill(o.domain ?? "demo");
  await page.getByLabel("Project", { exact: true }).fill(o.project ?? "demo");
  await page.getByRole("button", { name: "Sign in" }).click();
  if (o.lands ?? true) await expect(page).toHaveURL(/\/$/);
}

/** The cloud admin's password in the test Keystone. */
export const adminPassword = () => process.env.KS_ADMIN_PASSWORD ?? "admin-secret";

/** A name no earlier run used: `prefix-` and five base-36 digits of the clock. */
export const unique = (prefix: string) => `${prefix}-${Date.now().toString(36).slice(-5)}`;
