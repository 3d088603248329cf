import { assertSandboxEnabled } from './gateways.js';
import { createInProcessMoney } from './money.js';
import { moneyClock } from './maintenance.service.js';
import { commandOption, runMoneyCommand } from './money-command.js';
import { DAY_MS } from '../../common/time.js';

/**
 * `npm run payments:renew [-- --days=N] [-- --fail=<billing>[:times]]`: the sandbox provider's clock, for development
 * and demos. Without options it charges what is due now (the running server does the same every minute). `--days=N`
 * advances the clock a day at a time for N days, charging each renewal when its period ends and lapsing the
 * subscriptions whose grace period runs out on the way (dates in our tables are then those of the simulated days).
 * `--fail=sbs_…:2` makes that billing's next 2 attempts fail (`--fail=sbs_…:0` lets them succeed again).
 * Events are verified and applied in this process exactly as the webhook endpoint would (no server needed).
 */

runMoneyCommand(
  createInProcessMoney,
  async (money) => {
    const fail = commandOption('fail');
    if (fail) {
      const [id, times] = fail.split(':');
      if (!(await money.sandbox().failNext(id!, times === undefined ? 1 : Number(times)))) throw new Error(`no sandbox billing ${id}`);
    }
    const days = Number(commandOption('days') ?? 0);
    if (!Number.isInteger(days) || days < 0 || days > 3660) throw new Error('--days takes a whole number of days (0 to 3660)');
    const start = Date.now();
    const totals = { renewed: 0, failed: 0, redelivered: 0, expired: 0, lapsed: 0, closed: 0, reminded: 0 };
    for (let day = 0; day <= days; day++) {
      const r = await moneyClock(money, new Date(start + day * DAY_MS));
      totals.renewed += r.renewals?.renewed ?? 0;
      totals.failed += r.renewals?.failed ?? 0;
      totals.redelivered += r.renewals?.redelivered ?? 0;
      totals.expired += r.expired;
      totals.lapsed += r.lapsed;
      totals.closed += r.closed;
      totals.reminded += r.reminded;
    }
    process.stdout.write(`${JSON.stringify({ until: new Date(start + days * DAY_MS).toISOString(), ...totals }, null, 2)}\n`);
  },
  { check: assertSandboxEnabled },
);
