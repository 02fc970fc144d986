/**
 * kubectl describe's PrefixWriter (kubectl pkg/describe): text indented by two spaces per level,
 * terminal escapes made harmless as printers.WriteEscaped does (ESC as `^[`, CR as `\r`), so the
 * descriptions come out byte for byte as kubectl's.
 */

/** Collects described lines. */
export class PrefixWriter {
  private readonly parts: string[] = [];

  /** Writes `text` indented by `level` (two spaces each). */
  write(level: number, text: string): void {
    this.parts.push(escapeTerminal('  '.repeat(level) + text));
  }

  /** Writes `text` and a newline, unindented (Go's fmt.Sprintln of one value). */
  writeLine(text: string): void {
    this.parts.push(escapeTerminal(`${text}\n`));
  }

  /** Everything written so far. */
  toString(): string {
    return this.parts.join('');
  }
}

function escapeTerminal(text: string): string {
  return text.replaceAll('\x1b', '^[').replaceAll('\r', '\\r');
}
