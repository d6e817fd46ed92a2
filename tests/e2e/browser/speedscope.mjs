// SPDX-License-Identifier: GPL-2.0-only
// Opens a profile in speedscope, in headless Chromium driven by
// playwright-core, and prints what the page shows as JSON: the profiles
// (one per thread track), and for each the rows of the sandwich view's
// table (the frame names with their times), as speedscope lists them.
//   node speedscope.mjs URL [SCREENSHOT.png [N]]
// URL is speedscope's index.html with #profileURL=... (served over HTTP:
// Chromium does not let a file:// page fetch another file). The
// screenshot shows the time-order view of the Nth profile (default 1).
import { chromium } from "playwright-core";

const [url, shot, nth] = process.argv.slice(2);
const browser = await chromium.launch({
	executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
	args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
	       "--no-first-run", "--disable-background-networking",
	       "--disable-component-update", "--disable-sync"],
});
const out = { errors: [], profiles: [] };
try {
	const page = await browser.newPage({ viewport: { width: 1400, height: 800 } });
	page.on("pageerror", (e) => out.errors.push(String(e)));
	await page.goto(url);
	// Loaded: the toolbar names the profile (the thread) shown.
	await page.waitForFunction(() => document.body.innerText.includes("Time Order"),
				   null, { timeout: 60000 });
	await page.waitForTimeout(1000);
	out.title = await page.title();
	out.toolbar = await page.evaluate(() => document.body.innerText.split("\n").slice(0, 8));
	if (shot) {
		for (let i = 1; i < Number(nth || 1); i++)
			await page.keyboard.press("n");
		await page.waitForTimeout(500);
		await page.screenshot({ path: shot });
		for (let i = 1; i < Number(nth || 1); i++)
			await page.keyboard.press("p");
	}
	// Each profile: select it with the keyboard (n: next), read the
	// sandwich view's table.
	await page.keyboard.press("3");	// the sandwich view
	await page.waitForTimeout(500);
	const seen = new Set();
	for (let i = 0; i < 64; i++) {
		const info = await page.evaluate(() => {
			const text = document.body.innerText;
			const rows = [...document.querySelectorAll("table tr, [role=row]")]
				.map((r) => r.innerText.replace(/\s+/g, " ").trim())
				.filter((t) => t);
			return { text: text.split("\n").slice(0, 6), rows };
		});
		const key = info.text.join("|");
		if (seen.has(key))
			break;
		seen.add(key);
		out.profiles.push(info);
		await page.keyboard.press("n");
		await page.waitForTimeout(300);
	}
} finally {
	await browser.close();
}
console.log(JSON.stringify(out));
