// Text from elsewhere (an answer, a request) as it may reach a person's terminal: control characters,
// which could be escape sequences, are shown as \u escapes. Line breaks and tabs stay when asked.
// eslint-disable-next-line no-control-regex -- neutralising control characters is the point
const ALL = /[\u0000-\u001f\u007f-\u009f]/g;
// eslint-disable-next-line no-control-regex -- the same, keeping tab and line feed
const BUT_LINES = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

export const printable = (text: string, opts: { lines?: boolean } = {}): string =>
  text.replace(opts.lines ? BUT_LINES : ALL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
