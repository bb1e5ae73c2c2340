// What several specs share: the `test` every spec uses (it fails a test whose page's WASM
// panicked), signing in through the login form, fresh names, and calling the app's server
// functions as a script would.
import { expect, test as base, type Page } from "@playwright/test";

/** Playwright's `test`, which also fails when a page of the test's context logged a Rust
 * panic: after one the page's reactive state is half-updated, its handlers may hold borrows
 * for ever, and later clicks can do nothing (a test then times out far from the cause). */
export const test = base.extend<{ panics: string[] }>({
  panics: [
    async ({ context }, use) => {
      const seen: string[] = [];
      const watch = (p: Page) =>
        p.on("console", (m) => {
          if (m.type() === "error" && m.text().includes("panicked at")) {
            seen.push(`${p.url()}: ${m.text().split("\n").slice(0, 2).join(" ")}`);
          }
        });
      context.pages().forEach(watch);
      context.on("page", watch);
      await use(seen);
      expect(seen, "a page's WASM panicked").toEqual([]);
    },
    { auto: true },
  ],
});

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

/** Headers for calling the app's server functions as a script would (JSON answers): the
 * origin of the site `page` shows (a spec may use another server than the project's), else
 * the project's. */
export const scriptHeaders = (page?: Page) => {
  const shown = page?.url() ?? "";
  const base = shown.startsWith("http") ? shown : test.info().project.use.baseURL!;
  return { Origin: new URL(base).origin, Accept: "application/json" };
};

/** The kluster as the app's server reads it from the controller API. */
export async function apiKluster(page: Page, name: string) {
  const res = await page.request.post("/api/get_kluster_detail", { form: { name }, headers: scriptHeaders(page) });
  expect(res.status(), await res.text()).toBe(200);
  return (await res.json()).kluster;
}

/** Creates kluster `name` with one empty pool (no nodes: no quota used). */
export async function createEmptyKluster(page: Page, name: string) {
  const res = await page.request.post("/api/create_kluster", {
    headers: scriptHeaders(page),
    form: {
      "form[name]": name,
      "form[pools][0][name]": "pool",
      "form[pools][0][flavor]": "m1.small",
      "form[pools][0][availability_zone]": "az-a",
      "form[pools][0][size]": "0",
    },
  });
  expect(res.status(), await res.text()).toBeLessThan(400);
}

/** Deletes kluster `name` (cleanup; its answer is not checked). */
export async function removeKluster(page: Page, name: string) {
  await page.request.post("/api/delete_kluster", { form: { name, confirm: name }, headers: scriptHeaders(page) });
}
