/**
 * The relay of the local pipeline, supervised as the schedule supervises it on AWS: when it stops on
 * a failure (its checkpoint stays where its last published trigger was), a new relay resumes from
 * there a second later.
 */
import type { StructuredLogger } from '../log/structured-logger.ts';
import { type Relay, type RelayOptions, startRelay } from '../relay/run/relay.ts';

/** Starts, stops and restarts the relay. */
export class RelaySupervisor {
  private current: Relay | undefined;
  private wanted = false;

  constructor(
    private readonly options: Readonly<RelayOptions>,
    private readonly logger: StructuredLogger,
    private readonly restartDelayMs = 1_000,
  ) {}

  /** The running relay, if any. */
  get relay(): Relay | undefined {
    return this.current;
  }

  /** Starts the relay unless it runs; rejects when it cannot start (the cluster cannot be listed). */
  async start(): Promise<void> {
    this.wanted = true;
    if (!this.current) await this.launch();
  }

  /** Stops the relay, publishing what it has and writing its checkpoint; no restart follows. */
  async stop(): Promise<void> {
    this.wanted = false;
    const running = this.current;
    this.current = undefined;
    await running?.stop();
  }

  private async launch(): Promise<void> {
    const started = await startRelay(this.options);
    this.current = started;
    started.done.catch((error: unknown) => {
      if (this.current !== started) return;
      this.current = undefined;
      this.logger.error('the relay stopped; restarting it from its checkpoint', { error: String(error) });
      this.restartLater();
    });
  }

  private restartLater(): void {
    setTimeout(() => {
      if (!this.wanted || this.current) return;
      this.launch().catch((error: unknown) => {
        this.logger.error('restarting the relay failed; trying again', { error: String(error) });
        this.restartLater();
      });
    }, this.restartDelayMs);
  }
}
