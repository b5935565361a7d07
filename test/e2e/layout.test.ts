/**
 * Layout at a small window with the sidebar at its default width (issue 38): the walkthrough's
 * step buttons show their whole text on one line (one was cut: "Apply Deletion Policy (Preview
 * First)…"). Measured in Chromium: a cut text has a scrollWidth larger than its clientWidth, a
 * wrapped one makes its button taller than the one-line buttons.
 *
 * Runs against the packaged VSIX when AGENT_MEMORY_E2E_VSIX names one (npm test does),
 * otherwise against the repo as the development extension (needs `npm run build`).
 */
import * as assert from 'node:assert/strict';
import { startWorkbench, type WorkbenchSession } from '../support/workbench';

const VSIX = process.env.AGENT_MEMORY_E2E_VSIX;
const STEPS = ['seeded', 'runOne', 'approve', 'stream', 'deletion', 'dashboard'];

describe(`layout at the default sizes (${VSIX ? 'installed VSIX' : 'development extension'})`, function () {
  this.timeout(180_000);
  let session: WorkbenchSession | undefined;

  before(async function () {
    session = await startWorkbench(VSIX ? { mode: 'vsix', vsix: VSIX } : { mode: 'development' });
  });

  after(async function () {
    if (this.currentTest?.state === 'failed' && session) {
      process.stderr.write(`browser console (last lines):\n${session.consoleLines.slice(-30).join('\n')}\n`);
    }
    await session?.dispose();
  });

  it("every walkthrough step's button shows its whole text", async () => {
    const wb = session!.workbench;
    // A 1024 × 768 window (a small laptop screen) with the sidebar at its default width.
    await wb.page.setViewportSize({ width: 1024, height: 768 });
    // The extension's contributions are loaded once its view container shows.
    await wb.openMemoryExplorer();
    await wb.runCommand('Agent Memory: First Five Minutes (Walkthrough)');
    const page = wb.page.locator('.part.editor .gettingStartedContainer');
    await page.getByText('Agent Memory: the first five minutes').first().waitFor({ state: 'visible', timeout: 30_000 });
    const cut: string[] = [];
    const heights: number[] = [];
    const texts: { text: string; height: number }[] = [];
    let measured = 0;
    for (const id of STEPS) {
      const step = page.locator(`.getting-started-step[data-step-id$="#firstFiveMinutes#${id}"]`);
      if (!(await step.isVisible())) continue; // "seed" or "seeded", whichever the memory's state shows
      await step.click();
      const buttons = step.getByRole('button');
      await buttons.first().waitFor({ state: 'visible', timeout: 15_000 });
      // The button or the label inside it may be the element that clips (text-overflow: ellipsis).
      const sizes = await buttons.evaluateAll((els) =>
        els.map((e) => {
          const boxes = [e, ...Array.from(e.querySelectorAll('*'))];
          const worst = boxes.reduce((w, b) => (b.scrollWidth - b.clientWidth > w.scrollWidth - w.clientWidth ? b : w), e);
          return { text: (e.textContent ?? '').trim(), scroll: worst.scrollWidth, client: worst.clientWidth, height: e.getBoundingClientRect().height };
        }),
      );
      for (const size of sizes.filter((s) => s.text)) {
        measured++;
        heights.push(size.height);
        if (size.scroll > size.client) cut.push(`${id}: "${size.text}" needs ${size.scroll} px, has ${size.client}`);
        texts.push(size);
      }
    }
    await wb.screenshot('layout-walkthrough');
    assert.ok(measured >= STEPS.length - 1, `a button per step measured (${measured})`);
    // A button whose text wraps to a second line is taller than the one-line ones.
    const oneLine = Math.min(...heights);
    for (const t of texts) if (t.height > oneLine * 1.5) cut.push(`"${t.text}" wraps: ${t.height} px high, one line is ${oneLine}`);
    process.stderr.write(`walkthrough buttons: ${JSON.stringify(texts)}\n`);
    assert.deepEqual(cut, []);
  });
});
