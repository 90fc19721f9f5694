/**
 * Writes that take turns on one row or lock through each commit (a commit's WAL flush each on
 * PostgreSQL): one of a key's writes is on its way at a time from this instance, and the ones
 * that arrive meanwhile wait for it in order of arrival, then go `together` in one statement,
 * one turn and one flush for all; those arriving during a group form the next. When the
 * database refuses a group's statement (an SQLSTATE: nothing of it was written) each of its
 * writes goes `alone`, as it would have without the group; any other failure fails them all
 * (a statement whose answer was lost may have committed: writing again could write twice).
 * Instances group their own writes only. Used by round robin's pick (reservations), the
 * agents' daily-limit count and their activity record.
 */
export function turnGroups<Key, Input, Output>(
  alone: (input: Input) => Promise<Output>,
  together: (key: Key, inputs: Input[]) => Promise<Output[]>,
  /** Most writes in one group (a statement prepared per count stays a small set); the rest form the next. */
  most = Number.POSITIVE_INFINITY,
) {
  /** Per key: the writes that arrived while one of the key's was on its way. */
  const waiting = new Map<Key, Waiting<Input, Output>[]>();

  async function goTogether(key: Key, group: Waiting<Input, Output>[]): Promise<void> {
    let outputs: Output[];
    try {
      outputs = await together(
        key,
        group.map((member) => member.input),
      );
    } catch (error) {
      for (const member of group) {
        if (refusedByDatabase(error)) await alone(member.input).then(member.resolve, member.reject);
        else member.reject(error);
      }
      return;
    }
    for (const [i, member] of group.entries()) member.resolve(outputs[i] as Output);
  }

  async function drain(key: Key): Promise<void> {
    // Arrivals push onto this same queue while a group is on its way.
    const queue = waiting.get(key)!;
    while (queue.length > 0) await goTogether(key, queue.splice(0, most));
    waiting.delete(key);
  }

  return {
    /** Writes `input` alone when none of `key`'s is on its way, else with the group after it. */
    async write(key: Key, input: Input): Promise<Output> {
      const queue = waiting.get(key);
      if (queue) return new Promise((resolve, reject) => queue.push({ input, resolve, reject }));
      waiting.set(key, []);
      try {
        return await alone(input);
      } finally {
        // Settles every member itself: nothing to await or catch here.
        void drain(key);
      }
    },
  };
}

interface Waiting<Input, Output> {
  input: Input;
  resolve(output: Output): void;
  reject(error: unknown): void;
}

/** A statement the database refused (an SQLSTATE): nothing of it was written. */
const refusedByDatabase = (error: unknown) => /^[0-9A-Z]{5}$/.test((error as { code?: string }).code ?? '');
