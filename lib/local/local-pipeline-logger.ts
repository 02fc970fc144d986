/**
 * The Powertools Logger of the local pipeline: the same logger class the functions use (so the
 * handlers' middy middleware works unchanged), printing one plain line per entry instead of JSON.
 */

import type { LogItem } from '@aws-lambda-powertools/logger';
import { Logger } from '@aws-lambda-powertools/logger';

// Keys Powertools adds to every entry: the Lambda context and the envelope, not news to a reader.
const envelopeKeys = new Set([
  'level',
  'message',
  'timestamp',
  'service',
  'sampling_rate',
  'xray_trace_id',
  'cold_start',
  'function_name',
  'function_memory_size',
  'function_arn',
  'function_request_id',
]);

function valueText(value: unknown): string {
  if (typeof value === 'string') return /\s/.test(value) ? JSON.stringify(value) : value;
  return JSON.stringify(value) ?? String(value);
}

/** `HH:MM:SS.mmm LEVEL service: message key=value…` of a log entry's attributes. */
export function plainLogLine(attributes: Readonly<Record<string, unknown>>): string {
  const time = typeof attributes.timestamp === 'string' ? attributes.timestamp.slice(11, 23) : '';
  const level = String(attributes.level ?? '').padEnd(5);
  const service = String(attributes.service ?? '').replace(/^everynode-/, '');
  const extra = Object.entries(attributes)
    .filter(([key, value]) => !envelopeKeys.has(key) && value !== undefined)
    .map(([key, value]) => `${key}=${valueText(value)}`);
  return [`${time} ${level} ${service}: ${String(attributes.message ?? '')}`, ...extra].join(' ');
}

/** Options of {@link LocalLogger}. */
export interface LocalLoggerOptions {
  readonly serviceName: string;
  /** Where each line goes (without its newline). */
  readonly sink: (line: string) => void;
  readonly logLevel?: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' | 'SILENT';
}

/** A Powertools Logger that hands `sink` one plain line per entry. */
export class LocalLogger extends Logger {
  private readonly sink: (line: string) => void;

  constructor(options: Readonly<LocalLoggerOptions>) {
    super({ serviceName: options.serviceName, logLevel: options.logLevel ?? 'INFO' });
    this.sink = options.sink;
  }

  protected override printLog(_logLevel: number, log: LogItem): void {
    log.prepareForPrint();
    this.sink(plainLogLine(log.getAttributes()));
  }
}
