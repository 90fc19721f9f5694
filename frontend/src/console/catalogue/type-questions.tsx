// A type's booking questions (DECISIONS.md "Pages people live in"): up to ten, each a label, a
// key its answers are stored under, a kind, whether it is required, and a select's choices.
// Added, removed and reordered here; the API checks them, and its refusals
// (`body.questions.2.options`) land on the question's own fields.
import { useState } from 'react';
import type { ResourceType } from '../../api/types.js';
import { Check, Field, Select, TextArea } from '../ui.js';

export type BookingQuestion = ResourceType['questions'][number];
type QuestionKind = BookingQuestion['kind'];

/** Questions a type asks at most (the API's bound). */
export const MAX_QUESTIONS = 10;

const KIND_WORDS: Record<QuestionKind, string> = {
  text: 'Short text (one line)',
  textarea: 'Long text',
  email: 'Email address',
  phone: 'Phone number',
  select: 'Choice from a list',
  checkbox: 'Checkbox (yes or no)',
};

/** One question as the form holds it: a select's choices one per line. */
export interface QuestionDraft {
  /** React's key: stays with the question as it moves. */
  key: number;
  id: string;
  label: string;
  kind: QuestionKind;
  required: boolean;
  options: string;
  /** Whether the key was written by hand (or stored): otherwise it follows the label. */
  idFixed: boolean;
}

let nextKey = 1;

/** The form's questions of a type (none for a new one); stored keys never follow the label. */
export const questionDrafts = (questions: readonly BookingQuestion[] = []): QuestionDraft[] =>
  questions.map((q) => ({
    key: nextKey++,
    id: q.id,
    label: q.label,
    kind: q.kind,
    required: q.required,
    options: (q.options ?? []).join('\n'),
    idFixed: true,
  }));

/** The questions as the API takes them: a select's non-empty lines as its choices. */
export const questionsBody = (drafts: readonly QuestionDraft[]): BookingQuestion[] =>
  drafts.map((d) => ({
    id: d.id.trim(),
    label: d.label.trim(),
    kind: d.kind,
    required: d.required,
    ...(d.kind === 'select'
      ? {
          options: d.options
            .split('\n')
            .map((line) => line.trim())
            .filter(Boolean),
        }
      : {}),
  }));

/** A key made from a label: `Invoice email` is `invoiceEmail`. */
export function idFromLabel(label: string): string {
  const words = label
    .normalize('NFKD')
    .replace(/[^A-Za-z0-9 ]/g, ' ')
    .trim()
    .split(/\s+/)
    .filter(Boolean);
  const id = words
    .map((w, i) => (i === 0 ? w.toLowerCase() : w[0]!.toUpperCase() + w.slice(1).toLowerCase()))
    .join('')
    .replace(/^[0-9]+/, '');
  return id.slice(0, 64);
}

/** Every field name of the editor, for the form's summary of refusals it does not show. */
export const questionFieldNames = (drafts: readonly QuestionDraft[]): string[] => [
  'questions',
  ...drafts.flatMap((d, i) => {
    const at = `questions.${i}`;
    return [at, `${at}.id`, `${at}.label`, `${at}.kind`, `${at}.required`, `${at}.options`].concat(
      d.options.split('\n').map((_, j) => `${at}.options.${j}`),
    );
  }),
];

/** The first refusal under `prefix` (its own field or any below it). */
const errorUnder = (errors: Record<string, string>, prefix: string) =>
  errors[prefix] ?? Object.entries(errors).find(([path]) => path.startsWith(`${prefix}.`))?.[1];

/** Changing, moving, removing and adding questions; `announced` says what moved or went. */
function useQuestionList(drafts: QuestionDraft[], onChange: (drafts: QuestionDraft[]) => void) {
  const [announced, setAnnounced] = useState('');
  const change = (i: number, patch: Partial<QuestionDraft>) =>
    onChange(drafts.map((d, j) => (j === i ? { ...d, ...patch } : d)));
  const move = (i: number, by: -1 | 1) => {
    const next = [...drafts];
    const [moved] = next.splice(i, 1);
    next.splice(i + by, 0, moved!);
    onChange(next);
    setAnnounced(`Question ${i + 1} moved to ${i + 1 + by}.`);
  };
  const remove = (i: number) => {
    onChange(drafts.filter((_, j) => j !== i));
    setAnnounced(`Question ${i + 1} removed.`);
  };
  const add = () =>
    onChange([
      ...drafts,
      { key: nextKey++, id: '', label: '', kind: 'text', required: false, options: '', idFixed: false },
    ]);
  return { announced, change, move, remove, add };
}

export function TypeQuestions(props: {
  drafts: QuestionDraft[];
  errors: Record<string, string>;
  onChange: (drafts: QuestionDraft[]) => void;
}) {
  const { drafts, errors } = props;
  const { announced, change, move, remove, add } = useQuestionList(drafts, props.onChange);
  return (
    <fieldset className="type-questions">
      <legend>Booking questions</legend>
      <p className="hint">
        Asked on the booking page after name and email, in this order (up to {MAX_QUESTIONS}). Answers are
        stored under each question's key.
      </p>
      {drafts.length === 0 ? (
        <p className="empty">No questions: customers give name and email only.</p>
      ) : null}
      <ol className="question-list">
        {drafts.map((d, i) => (
          <QuestionRow
            key={d.key}
            draft={d}
            index={i}
            count={drafts.length}
            errors={errors}
            onChange={(patch) => change(i, patch)}
            onMove={(by) => move(i, by)}
            onRemove={() => remove(i)}
          />
        ))}
      </ol>
      {errors.questions ? (
        <p className="field-error" id="e-questions">
          {errors.questions}
        </p>
      ) : null}
      <p className="visually-hidden" aria-live="polite">
        {announced}
      </p>
      <div className="actions">
        <button type="button" className="secondary" onClick={add} disabled={drafts.length >= MAX_QUESTIONS}>
          Add question
        </button>
      </div>
    </fieldset>
  );
}

function QuestionRow(props: {
  draft: QuestionDraft;
  index: number;
  count: number;
  errors: Record<string, string>;
  onChange: (patch: Partial<QuestionDraft>) => void;
  onMove: (by: -1 | 1) => void;
  onRemove: () => void;
}) {
  const { draft: d, index: i, errors, onChange } = props;
  const at = `questions.${i}`;
  const n = i + 1;
  return (
    <li className="question" aria-label={`Question ${n}`}>
      <QuestionFields draft={d} at={at} n={n} errors={errors} onChange={onChange} />
      {d.kind === 'select' ? (
        <TextArea
          name={`${at}.options`}
          label="Choices (one per line)"
          value={d.options}
          error={errorUnder(errors, `${at}.options`)}
          onChange={(options) => onChange({ options })}
        />
      ) : null}
      {errors[at] ? <p className="field-error">{errors[at]}</p> : null}
      <QuestionMoves n={n} count={props.count} onMove={props.onMove} onRemove={props.onRemove} />
    </li>
  );
}

/** Moving the question `n` (from 1) of `count` up or down, and removing it. */
function QuestionMoves(props: {
  n: number;
  count: number;
  onMove: (by: -1 | 1) => void;
  onRemove: () => void;
}) {
  const { n } = props;
  return (
    <div className="actions">
      <button
        type="button"
        className="secondary"
        onClick={() => props.onMove(-1)}
        disabled={n === 1}
        aria-label={`Move question ${n} up`}
      >
        Up
      </button>
      <button
        type="button"
        className="secondary"
        onClick={() => props.onMove(1)}
        disabled={n === props.count}
        aria-label={`Move question ${n} down`}
      >
        Down
      </button>
      <button
        type="button"
        className="danger secondary"
        onClick={props.onRemove}
        aria-label={`Remove question ${n}`}
      >
        Remove
      </button>
    </div>
  );
}

/** A question's label, key, kind and whether it is required. */
function QuestionFields(props: {
  draft: QuestionDraft;
  /** The question's path in the body (`questions.2`), its fields' names under it. */
  at: string;
  n: number;
  errors: Record<string, string>;
  onChange: (patch: Partial<QuestionDraft>) => void;
}) {
  const { draft: d, at, n, errors, onChange } = props;
  return (
    <>
      <div className="grid-2">
        <Field
          name={`${at}.label`}
          label={`Question ${n}`}
          value={d.label}
          error={errors[`${at}.label`]}
          onChange={(label) => onChange(d.idFixed ? { label } : { label, id: idFromLabel(label) })}
        />
        <Field
          name={`${at}.id`}
          label="Key"
          value={d.id}
          hint="Letters, digits and _; kept once bookings answer it"
          error={errors[`${at}.id`]}
          onChange={(id) => onChange({ id, idFixed: true })}
        />
      </div>
      <div className="grid-2">
        <Select
          name={`${at}.kind`}
          label="Kind"
          value={d.kind}
          error={errors[`${at}.kind`]}
          onChange={(kind) => onChange({ kind: kind as QuestionKind })}
        >
          {Object.entries(KIND_WORDS).map(([kind, words]) => (
            <option key={kind} value={kind}>
              {words}
            </option>
          ))}
        </Select>
        <Check
          name={`${at}.required`}
          label={d.kind === 'checkbox' ? 'Required (must be ticked)' : 'Required'}
          checked={d.required}
          error={errors[`${at}.required`]}
          onChange={(required) => onChange({ required })}
        />
      </div>
    </>
  );
}
