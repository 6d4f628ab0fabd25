/** PostgreSQL's answer when a transaction lost a race it cannot wait out: serialization failure, deadlock. */
const RETRYABLE = new Set(['40001', '40P01']);
export const lostRace = (error: unknown): boolean => RETRYABLE.has((error as { code?: string } | null)?.code ?? '');
export const TRANSACTION_ATTEMPTS = 5;

/**
 * Runs a PostgreSQL transaction again after a deadlock or serialization failure: it was rolled back whole and the
 * callbacks only touch the store, so it is safe. SQLite takes its write lock up front and never needs this.
 */
export async function retried<T>(run: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (error) {
      if (attempt >= TRANSACTION_ATTEMPTS || !lostRace(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * attempt));
    }
  }
}
