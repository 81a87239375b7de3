/**
 * A second console process for the outbox tests (lib/webhooks/delivery.test.ts): the delivery
 * worker alone, on the same DATABASE_URL and secrets. Prints "ready" once it runs; SIGKILL
 * simulates a crash, SIGTERM stops it cleanly.
 */
import { startOutboxWorker } from "../lib/outbox/worker";
import { closeDb } from "../lib/db";

const stop = startOutboxWorker(Number(process.env.OUTBOX_CHILD_EVERY_MS || 100));
console.log("ready");
process.on("SIGTERM", () => {
  stop();
  void closeDb().then(() => process.exit(0));
});
setInterval(() => undefined, 1 << 30);
