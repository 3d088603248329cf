import { createMoney } from './money.js';
import { reconcilePending } from './maintenance.service.js';
import { commandOption, runMoneyCommand } from './money-command.js';

/**
 * `npm run payments:reconcile [-- --older-than=60]`: re-reads pending payments from their gateway and applies
 * what the provider says; cancels expired checkouts (stock back); closes lapsed subscriptions. See README.md.
 */
runMoneyCommand(createMoney, async (money) => {
  const olderThanSec = Number(commandOption('older-than') ?? 60);
  const report = await reconcilePending(money, { olderThanSec });
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  if (Object.keys(report.errors).length) process.exitCode = 2;
});
