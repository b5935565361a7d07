// Mocha reporter = the spec reporter + a machine-readable count file.
// Writes {"passed":N,"failed":N,"pending":N} to $MOCHA_COUNTS_FILE when the run ends
// (scripts/test-all.sh sums these into the closing "N passed, N failed" line).
// Usage: MOCHA_COUNTS_FILE=/tmp/c.json npx mocha --reporter ./scripts/mocha-counts-reporter.cjs ...
'use strict';
const fs = require('node:fs');
const Mocha = require('mocha');

class CountsReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    const file = process.env.MOCHA_COUNTS_FILE;
    runner.once(Mocha.Runner.constants.EVENT_RUN_END, () => {
      if (!file) return;
      const s = this.stats;
      fs.writeFileSync(file, JSON.stringify({ passed: s.passes, failed: s.failures, pending: s.pending }));
    });
  }
}

module.exports = CountsReporter;
