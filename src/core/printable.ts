/**
 * Text that came from a record, an import file or generated code, made safe to print on a
 * terminal (a toast, a log): control characters (ESC sequences that clear the screen, set the window title or
 * write the clipboard; BEL; carriage returns that overwrite a line) and bidirectional overrides
 * are shown escaped (`\u001b`), so such text can neither fake the CLI's output nor drive the
 * terminal. Newlines and tabs are kept unless `oneLine`.
 */
const MULTI_LINE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
const ONE_LINE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
const NAMED: Record<string, string> = { '\n': '\\n', '\t': '\\t', '\r': '\\r' };

export function printable(text: string, options: { oneLine?: boolean } = {}): string {
  return text.replace(options.oneLine ? ONE_LINE : MULTI_LINE, (c) => NAMED[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
