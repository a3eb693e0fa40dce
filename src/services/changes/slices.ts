/**
 * Effects in bounded slices (docs/operations.md, "How changes finish"; docs/scaling.md). A Worker
 * invocation may make a bounded number of subrequests, and each Durable Object call and each D1
 * query or batch counts as one (Cloudflare, Workers limits: 1,000 per invocation on the Paid plan;
 * D1: 1,000 queries per invocation on Paid, 50 on Free). A change of a user with 1,000 grants needs
 * more than that, so a run applies what fits in its budget, records where it stopped in the
 * change's row (`progress`), and the next run (the retried request, an unblock, the cron sweep)
 * continues from there: nothing redone, nothing skipped.
 */

/**
 * Subrequests one invocation spends on changes' effects: half the Paid plan's 1,000, so the rest of
 * the request (authentication, the guard's batch, the answer's reads, an audit row) and the cron's
 * other tasks keep room. `waitUntil` runs inside the same invocation, so it cannot extend it.
 */
export const SUBREQUEST_BUDGET = 500;

/** Counts what an invocation may still spend; one is shared by every change a request or a sweep runs. */
export class SubrequestBudget {
  spent = 0;
  constructor(readonly limit = SUBREQUEST_BUDGET) {}
  get left(): number {
    return Math.max(0, this.limit - this.spent);
  }
  /** Spends `n` if they fit; false (nothing spent) otherwise. */
  take(n: number): boolean {
    if (n > this.left) return false;
    this.spent += n;
    return true;
  }
}

/** Where a change's effects stand: the step they are at and, inside it, the last id done. */
export interface Progress {
  step: number;
  after: string;
}

/** What a run knows: how many runs failed before, its budget, where the last run stopped, and whether this one had to stop. */
export interface ChangeRun {
  attempts: number;
  /** When the change's intent was recorded (ms): a step that must spare what came after takes it as a bound. */
  recordedAt: number;
  budget: SubrequestBudget;
  progress: Progress;
  /** Set by a step that found no room left: the runner keeps the change pending with `progress`. */
  stopped: boolean;
}

/** A run from the start of a change's effects (tests, and a change run outside the runner). */
export function freshRun(budget = new SubrequestBudget()): ChangeRun {
  return { attempts: 0, recordedAt: Date.now(), budget, progress: { step: 0, after: "" }, stopped: false };
}

/** Kept back from every run for the row write that records its end (progress or deletion). */
export const FINISH_COST = 1;

/**
 * A step of `cost` subrequests done once (sessions deleted, device approvals ended): skipped when
 * an earlier run did it; stops the run when it does not fit.
 */
export async function once<T>(run: ChangeRun, step: number, cost: number, apply: () => Promise<T>): Promise<T | undefined> {
  if (run.stopped || run.progress.step > step) return undefined;
  if (!run.budget.take(cost)) {
    run.stopped = true;
    return undefined;
  }
  const out = await apply();
  run.progress = { step: step + 1, after: "" };
  return out;
}

/**
 * A step over many records, a page at a time: `page` lists ids after the cursor (one query), `apply`
 * acts on them and costs `costOf(n)` subrequests. Each page is as large as the budget allows; when no
 * page fits, the run stops with the cursor saved (the ids are ordered, so the next run starts after
 * the last id done). Answers how many records `apply` changed.
 */
export async function inSlices(
  run: ChangeRun,
  step: number,
  o: { page: (after: string, limit: number) => Promise<string[]>; apply: (ids: string[]) => Promise<number>; costOf: (n: number) => number; maxPage?: number },
): Promise<number> {
  if (run.stopped || run.progress.step > step) return 0;
  if (run.progress.step < step) run.progress = { step, after: "" };
  let affected = 0;
  for (;;) {
    const room = run.budget.left - 1; // the page's listing
    let n = Math.min(o.maxPage ?? 1000, room);
    while (n > 0 && o.costOf(n) > room) n--;
    if (n <= 0) {
      run.stopped = true;
      return affected;
    }
    run.budget.take(1);
    const ids = await o.page(run.progress.after, n);
    if (ids.length > 0) {
      run.budget.take(o.costOf(ids.length));
      affected += await o.apply(ids);
      run.progress = { step, after: ids[ids.length - 1] };
    }
    if (ids.length < n) {
      run.progress = { step: step + 1, after: "" };
      return affected;
    }
  }
}

/** The cost of revoking `n` families (src/credentials/oauth-family.ts revokeFamilies): one object call each, one D1 batch per slice of 90. */
export const revocationCost = (n: number) => n + Math.ceil(n / 90);

/**
 * What deleting one project's package objects and rows costs (effects.ts `deleteProjectContents`):
 * the project read, its package keys, the rows' two reads and one batch, and the R2 deletes (1,000
 * keys a call, twice at most). Exact for projects with up to 1,000 package files; a larger project
 * spends two more per further 1,000 files in the run that meets it (docs/scaling.md).
 */
export const PROJECT_CONTENTS_COST = 7;
