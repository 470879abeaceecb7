import { z } from 'zod';
import {
  baseShape,
  SETTING_GROUPS,
  type SettingDoc,
  type SettingGroup,
  type SettingName,
  settingDocs,
} from '../config-settings.ts';

/**
 * The configuration reference (docs/configuration.md) and `.env.example`, rendered from the settings
 * schema: names, defaults and bounds from the zod fields, descriptions and groups from `settingDocs`.
 * `npm run docs:config` writes both; test/config-reference.test.ts fails when either is stale.
 */

export const REGENERATE = 'npm run docs:config';

/** The generated part of docs/configuration.md sits between these lines; the rest is written by hand. */
export const REFERENCE_BEGIN = `<!-- BEGIN settings reference: generated from src/config-settings.ts by \`${REGENERATE}\`; edit there, not here -->`;
export const REFERENCE_END = '<!-- END settings reference -->';

interface Setting {
  readonly name: SettingName;
  readonly doc: SettingDoc;
  /** The default as written in the environment; undefined when the setting is unset by default. */
  readonly fallback: string | undefined;
  /** What the field accepts, in Markdown. */
  readonly accepts: string;
}

const BOOLEAN_SPELLINGS = ['true', 'false', '1', '0', 'yes', 'no', 'on', 'off'];
const BOOLEAN = '`true`, `false`';

interface FieldSchema {
  default?: unknown;
  type?: string;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  format?: string;
}

function describeField(name: SettingName): Setting {
  // The input side of the field: what an environment variable may hold, before any transform.
  const json = z.toJSONSchema(baseShape[name], { io: 'input', unrepresentable: 'any' }) as FieldSchema;
  const doc = settingDocs[name];
  const fallback = json.default === undefined ? undefined : String(json.default);
  if (doc.defaultText !== undefined && fallback)
    throw new Error(
      `${name}: defaultText is for settings unset or empty by default, and it defaults to ${fallback}`,
    );
  return { name, doc, fallback, accepts: accepts(json) };
}

function accepts(json: FieldSchema): string {
  if (json.enum && BOOLEAN_SPELLINGS.every((v) => json.enum?.includes(v))) return BOOLEAN;
  if (json.enum) return json.enum.map((v) => `\`${String(v)}\``).join(', ');
  if (json.type === 'integer') return `${json.minimum ?? ''}..${json.maximum ?? ''}`;
  if (json.format === 'uri') return 'URL';
  return 'text';
}

/** Every setting, essential ones first, then group by group in the order of SETTING_GROUPS. */
function settingsInOrder(): { essential: Setting[]; groups: Array<[SettingGroup, Setting[]]> } {
  const all = (Object.keys(settingDocs) as SettingName[]).map(describeField);
  const groups = (Object.keys(SETTING_GROUPS) as SettingGroup[]).map(
    (group) =>
      [group, all.filter((s) => s.doc.group === group && !s.doc.essential)] as [SettingGroup, Setting[]],
  );
  const essential = (Object.keys(SETTING_GROUPS) as SettingGroup[]).flatMap((group) =>
    all.filter((s) => s.doc.group === group && s.doc.essential),
  );
  return { essential, groups };
}

const KIB = 1024;

/** `4194304` -> `4 MiB`, for byte counts that are whole binary units. */
function binarySize(bytes: number): string | undefined {
  const units = ['KiB', 'MiB', 'GiB'];
  let value = bytes;
  let unit = -1;
  while (value >= KIB && value % KIB === 0 && unit < units.length - 1) {
    value /= KIB;
    unit += 1;
  }
  return unit >= 0 ? `${value} ${units[unit]}` : undefined;
}

function defaultCell(s: Setting): string {
  if (s.fallback === undefined || s.fallback === '') {
    const base = s.fallback === undefined ? '(unset)' : '(empty)';
    return s.doc.defaultText ? `${base}: ${s.doc.defaultText}` : base;
  }
  // A long comma-separated list reads (and wraps) better as one code span per entry.
  const entries = s.fallback.length > 40 && s.fallback.includes(',') ? s.fallback.split(',') : [s.fallback];
  const value = entries.map((e) => `\`${e}\``).join(', ');
  const size = s.name.endsWith('_BYTES') ? binarySize(Number(s.fallback)) : undefined;
  if (s.doc.defaultNote) return `${s.doc.defaultNote}: ${value}`;
  return size ? `${value} (${size})` : value;
}

const cell = (markdown: string) => markdown.replaceAll('|', '\\|');

function table(settings: Setting[]): string[] {
  return [
    '| variable | default | accepts | meaning |',
    '|---|---|---|---|',
    ...settings.map(
      (s) => `| \`${s.name}\` | ${cell(defaultCell(s))} | ${cell(s.accepts)} | ${cell(s.doc.description)} |`,
    ),
  ];
}

/** The generated part of docs/configuration.md, markers included. */
export function renderReference(): string {
  const { essential, groups } = settingsInOrder();
  const lines = [
    REFERENCE_BEGIN,
    '',
    '## Essential settings',
    '',
    'What nearly every deployment sets; each group below names the ones it has here.',
    '',
    ...table(essential),
  ];
  for (const [group, settings] of groups) {
    const { title, note } = SETTING_GROUPS[group];
    const essentials = essential.filter((s) => s.doc.group === group).map((s) => `\`${s.name}\``);
    lines.push('', `## ${title}`, '');
    if (note) lines.push(note, '');
    if (essentials.length > 0)
      lines.push(`Also in this group, under essential settings: ${essentials.join(', ')}.`, '');
    lines.push(...table(settings));
  }
  lines.push('', REFERENCE_END);
  return lines.join('\n');
}

/** `page` with its generated part replaced by `renderReference()`. */
export function withReference(page: string): string {
  const begin = page.indexOf(REFERENCE_BEGIN);
  const end = page.indexOf(REFERENCE_END);
  if (begin < 0 || end < begin)
    throw new Error(
      `docs/configuration.md has lost its markers: keep ${REFERENCE_BEGIN} ... ${REFERENCE_END}`,
    );
  return page.slice(0, begin) + renderReference() + page.slice(end + REFERENCE_END.length);
}

/** Markdown to the plain text of a comment: no code spans, links as their text and their page. */
function plain(markdown: string): string {
  return markdown
    .replace(/\[([^\]]+)\]\(([^)#]*)(#[^)]*)?\)/g, (_, text: string, page: string) =>
      page ? `${text}, docs/${page}` : text,
    )
    .replaceAll('`', '');
}

/** A paragraph as `# ` comment lines of at most `width` characters. */
function comment(text: string, width = 100): string[] {
  const lines: string[] = [];
  let line = '#';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line.length + 1 + word.length > width && line !== '#') {
      lines.push(line);
      line = '#';
    }
    line += ` ${word}`;
  }
  if (line !== '#') lines.push(line);
  return lines;
}

function sentence(markdown: string): string {
  const text = plain(markdown);
  const capitalised = markdown.startsWith('`') ? text : text.charAt(0).toUpperCase() + text.slice(1);
  return /[.!?]$/.test(capitalised) ? capitalised : `${capitalised}.`;
}

function envEntry(s: Setting): string[] {
  const said = ['text', 'URL', BOOLEAN].includes(s.accepts); // the value line shows as much
  const bounds = said ? '' : ` Accepts ${plain(s.accepts)}.`;
  const lines = comment(sentence(s.doc.description) + bounds);
  if (s.doc.defaultText)
    lines.push(...comment(`${s.fallback === undefined ? 'Unset' : 'Empty'}: ${plain(s.doc.defaultText)}.`));
  lines.push(s.fallback === undefined ? `# ${s.name}=${s.doc.example ?? ''}` : `${s.name}=${s.fallback}`);
  return lines;
}

/** The whole `.env.example`. */
export function renderEnvExample(): string {
  const { essential, groups } = settingsInOrder();
  const lines = [
    '# Vigil settings. Copy to `.env` (optional); variables set in the environment win over this file.',
    '# Every value below is the default; a commented-out line is a setting that is unset by default.',
    `# Generated from src/config-settings.ts by \`${REGENERATE}\` (edit there, not here); the same`,
    '# settings, with what each accepts, are in docs/configuration.md.',
    '',
    '# === essential: what nearly every deployment sets ===',
  ];
  for (const s of essential) lines.push('', ...envEntry(s));
  for (const [group, settings] of groups) {
    const { title, note } = SETTING_GROUPS[group];
    lines.push('', `# === ${title} ===`);
    if (note) lines.push(...comment(plain(note)));
    for (const s of settings) lines.push('', ...envEntry(s));
  }
  return `${lines.join('\n')}\n`;
}
