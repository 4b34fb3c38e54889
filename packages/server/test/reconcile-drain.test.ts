/**
 * The Redis store's reconciler at close (store/redis-reconcile.ts): drain()
 * must account for every count whose request was answered 503, including the
 * ones held by a round or an undo under way when it starts. Before, a drain
 * that found the list empty while a round held the counts ended at once; the
 * counts put back after it were never checked nor reported (a CI run saw the
 * Redis close test read 2 lookups used where 1 was answered 200).
 */
import { expect, it } from 'vitest';
import { Reconciler, type UncertainCount } from '../src/store/redis-reconcile.js';
import { until } from './support/children.js';

function count(id: string): UncertainCount {
  const now = Date.now();
  return { usageKey: 'u', markerKey: 'm', id, n: 1, account: 'acct', notBefore: now - 1, expires: now + 60_000 };
}

/** A refund whose answers the test gives one by one, in call order. */
function heldRefund() {
  const calls: { id: string; answer: (n: number) => void; fail: () => void }[] = [];
  const refund = (c: UncertainCount): Promise<number> =>
    new Promise<number>((resolve, reject) => calls.push({ id: c.id, answer: resolve, fail: () => reject(new Error('Redis unreachable')) }));
  return { calls, refund };
}

function events() {
  const seen: string[] = [];
  return { seen, report: (event: string) => void seen.push(event) };
}

it('a drain that starts while a round holds the counts waits for it, then checks what it put back', async () => {
  const { calls, refund } = heldRefund();
  const { seen, report } = events();
  const r = new Reconciler(refund, report);
  r.add(count('a'));
  await until(() => calls.length === 1, 'the timer round checking the count'); // the round holds it now
  const drained = r.drain(5_000);
  calls[0]!.fail(); // Redis not back yet: the round puts the count back
  await until(() => calls.length === 2, 'the drain checking the count again');
  calls[1]!.answer(1); // it had run: undone
  await drained;
  expect(seen).toEqual(['late_count']);
  expect(r.size).toBe(0);
});

it('a drain waits for the undo of a late answer under way, and checks it again if that failed', async () => {
  const { calls, refund } = heldRefund();
  const { seen, report } = events();
  const r = new Reconciler(refund, report);
  r.late(count('b'));
  expect(calls).toHaveLength(1);
  let done = false;
  const drained = r.drain(5_000).then(() => (done = true));
  calls[0]!.fail();
  await until(() => calls.length === 2, 'the count checked again');
  // By the drain, not by a timer round after the store closed (with the link gone, that check would fail).
  expect(done).toBe(false);
  calls[1]!.answer(1);
  await drained;
  expect(seen).toEqual(['late_count']);
});

it('a count that cannot be checked before the drain ends is reported, and one arriving after it is reported at once', async () => {
  const { calls, refund } = heldRefund();
  const { seen, report } = events();
  const r = new Reconciler(refund, report);
  r.add(count('c'));
  const drained = r.drain(300);
  // Redis never answers in time: every check fails.
  const failing = setInterval(() => calls.forEach((c) => c.fail()), 20);
  await drained;
  clearInterval(failing);
  expect(seen).toEqual(['unreconciled']);
  r.add(count('d'));
  expect(seen).toEqual(['unreconciled', 'unreconciled']);
  expect(r.size).toBe(0);
});
