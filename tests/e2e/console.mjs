// The web console in headless Chromium (playwright-core): catalog, filter, skill, form, call,
// result; the CSRF refusal; a review with its download; and, on a second console whose
// dispatcher has a skill that needs confirmation, the approval of a parked call and the
// escaping of a description holding a <script>.
//
// Environment: CONSOLE_URL (clausewright serve's printed address with its token), APPROVALS_URL
// (the second console's), PLAYWRIGHT_DIR (a folder whose node_modules has playwright-core),
// CHROMIUM (default /usr/bin/chromium), SHOTS_DIR (screenshots), DOCS_DIR (when set, the
// README's screenshots are written there too).
import { createRequire } from 'node:module';
import { mkdirSync, readFileSync, copyFileSync } from 'node:fs';
import { join } from 'node:path';

const require = createRequire(join(process.env.PLAYWRIGHT_DIR, 'package.json'));
const { chromium } = require('playwright-core');

const shots = process.env.SHOTS_DIR;
mkdirSync(shots, { recursive: true });
const docs = process.env.DOCS_DIR;

function check(condition, message) {
  if (!condition) {
    throw new Error(`check failed: ${message}`);
  }
  console.log(`ok - ${message}`);
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--no-sandbox'],
});
try {
  // ---- the clausewright serve console ----
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, acceptDownloads: true });
  const page = await context.newPage();
  page.on('dialog', () => { throw new Error('a script ran: a dialog opened'); });
  const base = new URL(process.env.CONSOLE_URL).origin;

  await page.goto(process.env.CONSOLE_URL);
  await page.waitForSelector('#catalog');
  check(!page.url().includes('token'), 'the token is dropped from the address after the first visit');
  const all = await page.locator('#catalog tbody tr').count();
  check(all > 10, `the catalog lists every skill (${all})`);
  await page.screenshot({ path: join(shots, 'catalog.png') });

  await page.selectOption('#domain', 'fidic');
  await page.fill('#q', 'time');
  await page.click('form.filters button[type=submit]');
  await page.waitForURL(/domain=fidic/);
  const filtered = await page.locator('#catalog tbody tr').count();
  check(filtered >= 1 && filtered < all, `the filter narrows the catalog (${filtered} of ${all})`);

  await page.click('a[href="/skills/fidic_calculate_time_bar"]');
  await page.waitForSelector('#call-form');
  check(await page.locator('#parameters tbody tr').count() >= 1, 'the skill page lists its parameters');
  check(await page.locator('#dialects input[type=radio]').count() === 8, 'one tab per dialect');
  await page.click('label[for="dialect-anthropic"]');
  check(await page.locator('#dialects .panel:nth-of-type(4)').isVisible(), 'the anthropic tab shows its definition');

  await page.fill('#arg-clause_id', '20.1');
  await page.click('#call-submit');
  await page.waitForSelector('#result');
  const heading = await page.textContent('#result h2');
  check(heading.includes('Result: ok'), `the call succeeds (${heading.trim()})`);
  const summary = await page.textContent('#summary');
  check(summary.includes('20.1'), `the summary comes first (${summary.slice(0, 60)}…)`);
  check((await page.inputValue('#arg-clause_id')) === '20.1', 'the form keeps what was entered');
  await page.screenshot({ path: join(shots, 'skill-result.png'), fullPage: false });

  // The same form without its CSRF field is refused (and nothing runs).
  await page.evaluate(() => document.querySelector('#call-form input[name=csrf]').remove());
  const [refused] = await Promise.all([
    page.waitForResponse((r) => r.url().endsWith('/call')),
    page.click('#call-submit'),
  ]);
  check(refused.status() === 403, 'a POST without the CSRF field is refused');
  check((await page.textContent('h1')).includes('Form expired'), 'the refusal says why');

  await page.goto(`${base}/reviews`);
  check(await page.locator('#mode option[value=agent]').isDisabled(), 'without a model the agent mode is offered disabled');
  check((await page.inputValue('#mode')) === 'checklist', 'the checklist mode is chosen');
  await page.selectOption('#sample', 'fidic');
  await page.selectOption('#domain', 'fidic');
  await page.fill('#our_party', 'Contractor');
  await page.click('#review-submit');
  await page.waitForURL(/\/reviews\/r[0-9-]+-[0-9a-f]+$/);
  await page.waitForSelector('#risks', { timeout: 240000 });
  const risks = await page.locator('#risks tbody tr').count();
  check(risks > 0, `the review lists its risks (${risks})`);
  await page.click('#risks details summary >> nth=0');
  check(await page.locator('#risks pre.evidence >> nth=0').isVisible(), 'a risk expands to its evidence');
  await page.screenshot({ path: join(shots, 'review.png') });
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download-md')]);
  const saved = join(shots, 'review.md');
  await download.saveAs(saved);
  check(readFileSync(saved, 'utf8').startsWith('# Review of'), 'the Markdown report downloads');
  await context.close();

  // ---- the second console: approvals and escaping ----
  const other = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  const page2 = await other.newPage();
  page2.on('dialog', () => { throw new Error('a script ran: a dialog opened'); });
  const base2 = new URL(process.env.APPROVALS_URL).origin;
  await page2.goto(process.env.APPROVALS_URL);
  await page2.waitForSelector('#catalog');
  const text = await page2.textContent('#catalog');
  check(text.includes('<script>alert(1)</script>'), 'a <script> in a description shows as text');

  await page2.goto(`${base2}/skills/demo.delete_note`);
  await page2.fill('#arg-id', '7');
  await page2.click('#call-submit');
  await page2.waitForSelector('#pending-notice');
  check((await page2.textContent('#error-code')) === 'confirmation_required', 'the call waits for confirmation');
  await page2.click('#pending-notice a[href="/approvals"]');
  await page2.waitForSelector('table#pending');
  check((await page2.textContent('table#pending')).includes('Delete note 7'), 'the pending call is listed with what it will do');
  await page2.screenshot({ path: join(shots, 'approvals.png') });
  await page2.click('table#pending button[id^="approve-"]');
  await page2.waitForSelector('#outcome');
  const outcome = await page2.textContent('#outcome');
  check(outcome.includes('approved') && outcome.includes('note 7 deleted'), 'approving runs the call and shows the outcome');
  check(await page2.locator('#no-pending').isVisible(), 'nothing waits any more');
  await other.close();

  if (docs) {
    copyFileSync(join(shots, 'catalog.png'), join(docs, 'console-catalog.png'));
    copyFileSync(join(shots, 'review.png'), join(docs, 'console-review.png'));
    console.log(`screenshots written to ${docs}`);
  }
} finally {
  await browser.close();
}
