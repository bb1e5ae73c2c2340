// Every page arrives with its own policy and hydrates, however often it is loaded and
// whatever else the suite does meanwhile (the other worker runs the other specs): each
// document's Content-Security-Policy must carry the nonce of its inline scripts, never the
// non-page policy ("default-src 'none'"), and the body must hydrate. Issue 33: a page
// sometimes arrived with the non-page policy, unstyled and dead, until a reload.
import { expect, type Browser, type Page } from "@playwright/test";
import { test, adminPassword, signIn } from "./support";

const ROUNDS = 4;

/** Loads `path` as a document; its policy must carry the nonce of every inline script of its
 * HTML (read from the answer: the browser hides nonces from the DOM), and it must hydrate. */
async function load(page: Page, path: string, problems: string[]) {
  const res = await page.goto(path);
  expect(res, path).toBeTruthy();
  const csp = (await res!.allHeaders())["content-security-policy"] ?? "";
  const html = await res!.text();
  const nonce = /'nonce-([^']+)'/.exec(csp)?.[1];
  if (!nonce) {
    problems.push(`${path}: policy without a nonce: ${csp}`);
    return;
  }
  const inline = [...html.matchAll(/<script([^>]*)>/g)].map((m) => m[1]).filter((a) => !a.includes("src="));
  expect(inline.length, `${path}: inline scripts`).toBeGreaterThan(0);
  for (const attrs of inline) {
    if (!attrs.includes(`nonce="${nonce}"`)) problems.push(`${path}: inline script without the policy's nonce: <script${attrs}>`);
  }
  await page.waitForSelector("body[data-hydrated]", { timeout: 15_000 });
}

async function admin(browser: Browser, base: string) {
  const ctx = await browser.newContext({ baseURL: base });
  const page = await ctx.newPage();
  await signIn(page, "admin", { password: adminPassword(), domain: "Default", project: "cloud_admin" });
  return { ctx, page };
}

test("every page, loaded again and again, carries its nonce policy and hydrates", async ({ page, browser }) => {
  test.setTimeout(120_000);
  const problems: string[] = [];
  const violations: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error" && m.text().includes("Content Security Policy")) violations.push(m.text());
  });
  const base = test.info().project.use.baseURL!;
  const headers = { Origin: new URL(base).origin, Accept: "application/json" };
  for (let i = 0; i < ROUNDS; i++) await load(page, "/login", problems);
  await signIn(page, "alice");
  const name = `policy-${Date.now().toString(36).slice(-5)}`;
  const created = await page.request.post("/api/create_kluster", {
    headers,
    form: {
      "form[name]": name,
      "form[pools][0][name]": "pool",
      "form[pools][0][flavor]": "m1.small",
      "form[pools][0][availability_zone]": "az-a",
      "form[pools][0][size]": "1",
    },
  });
  expect(created.status(), await created.text()).toBeLessThan(400);
  const ops = await admin(browser, base);
  try {
    for (let i = 0; i < ROUNDS; i++) {
      for (const path of ["/", "/klusters/new", `/klusters/${name}`, "/timeline", "/audit"]) {
        await load(page, path, problems);
      }
      for (const path of ["/ops", "/ops/timeline", "/audit"]) await load(ops.page, path, problems);
    }
  } finally {
    await ops.ctx.close();
    await page.request.post("/api/delete_kluster", { headers, form: { name, confirm: name } });
  }
  expect(problems, "documents whose policy does not fit their scripts").toEqual([]);
  expect(violations, "policy violations in the console").toEqual([]);
});
