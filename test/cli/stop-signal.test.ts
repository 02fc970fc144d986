import { describe, expect, it } from 'vitest';
import { STOP_SIGNALS, stopSignal } from '../../lib/cli/stop-signal.ts';

describe('stopSignal', () => {
  const cases: { name: string; signal: (typeof STOP_SIGNALS)[number]; status: number }[] = [
    { name: 'Ctrl-C', signal: 'SIGINT', status: 130 },
    { name: 'SIGTERM', signal: 'SIGTERM', status: 143 },
    { name: 'a closed terminal', signal: 'SIGHUP', status: 129 },
  ];
  it.each(cases)(
    'stops on $name and exits with 128 + its number, as a shell reports it',
    ({ signal, status }) => {
      const stop = stopSignal();
      try {
        expect(stop.exitStatus(0)).toBe(0);
        process.emit(signal, signal);
        expect(stop.signal.aborted).toBe(true);
        expect(stop.exitStatus(0)).toBe(status);
        expect(stop.exitStatus(1)).toBe(status);
      } finally {
        stop.dispose();
      }
    },
  );

  it('keeps the exit code when stopped through a given abort signal', () => {
    const given = new AbortController();
    const stop = stopSignal(given.signal);
    given.abort();
    expect(stop.signal.aborted).toBe(true);
    expect(stop.exitStatus(0)).toBe(0);
  });

  it('listens to no process signal once disposed, nor while given an abort signal', () => {
    const before = STOP_SIGNALS.map((name) => process.listenerCount(name));
    const stop = stopSignal();
    expect(STOP_SIGNALS.map((name) => process.listenerCount(name))).toEqual(before.map((n) => n + 1));
    stop.dispose();
    stopSignal(new AbortController().signal);
    expect(STOP_SIGNALS.map((name) => process.listenerCount(name))).toEqual(before);
  });
});
