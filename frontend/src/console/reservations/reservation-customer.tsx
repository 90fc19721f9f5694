// A booking's customer in the console: the staff form's fieldset (name, email, the optional
// phone, the type's own fields, its booking questions by kind, the notes) with each refusal on
// its own field (`customer.<field>`, `customer.answers.<id>`), and the detail's rows of what the
// customer gave, answers under their question's label (DECISIONS.md "Pages people live in").
import { Fragment } from 'react';
import type { Reservation, ResourceType } from '../../api/types.js';
import { fieldLabel } from '../../lib/manage-links.js';
import { Check, Field, Select, TextArea } from '../ui.js';

type Question = ResourceType['questions'][number];
export type Answers = Record<string, string | boolean>;

/** What the form holds of the customer; `info` and `answers` by key, across types. */
export interface CustomerDraft {
  name: string;
  email: string;
  phone: string;
  notes: string;
  info: Record<string, string>;
  answers: Answers;
}

export const emptyCustomer = (): CustomerDraft => ({
  name: '',
  email: '',
  phone: '',
  notes: '',
  info: {},
  answers: {},
});

const BUILT_IN = ['name', 'email', 'phone'];

/** The type's own customer fields beyond name, email and phone (listing phone leaves it optional). */
const infoFields = (type: ResourceType | undefined) =>
  (type?.customerInfoFields ?? []).filter((key) => !BUILT_IN.includes(key));

const optional = (label: string, required: boolean) => (required ? label : `${label} (optional)`);

/**
 * The customer as POST /api/reservations takes it: the type's own fields as typed (an empty one
 * is refused on its field), and answers to its questions only: a text left empty is no answer,
 * a checkbox is its state.
 */
export function customerBody(type: ResourceType | undefined, draft: CustomerDraft) {
  const answers: Answers = {};
  for (const q of type?.questions ?? []) {
    const value = draft.answers[q.id];
    if (q.kind === 'checkbox') answers[q.id] = value === true;
    else if (typeof value === 'string' && value.trim() !== '') answers[q.id] = value;
  }
  return {
    name: draft.name,
    email: draft.email,
    ...(draft.phone.trim() ? { phone: draft.phone } : {}),
    ...Object.fromEntries(infoFields(type).map((key) => [key, draft.info[key] ?? ''])),
    ...(Object.keys(answers).length > 0 ? { answers } : {}),
  };
}

/** The field names the fieldset shows a refusal on (the rest go to the form's summary). */
export const customerFieldNames = (type: ResourceType | undefined) => [
  'customer.name',
  'customer.email',
  'customer.phone',
  ...infoFields(type).map((key) => `customer.${key}`),
  ...(type?.questions ?? []).map((q) => `customer.answers.${q.id}`),
  'notes',
];

/** One booking question, as its kind asks; marked "(optional)" unless required. */
function QuestionField(props: {
  question: Question;
  value: string | boolean | undefined;
  error: string | undefined;
  onChange: (value: string | boolean) => void;
}) {
  const { question: q, value, error, onChange } = props;
  const common = {
    name: `customer.answers.${q.id}`,
    label: optional(q.label, q.required),
    required: q.required,
    error,
  };
  const text = typeof value === 'string' ? value : '';
  switch (q.kind) {
    case 'checkbox':
      return <Check {...common} checked={value === true} onChange={onChange} />;
    case 'select':
      return (
        <Select {...common} value={text} onChange={onChange}>
          <option value="">{q.required ? 'Choose one' : 'No answer'}</option>
          {(q.options ?? []).map((option) => (
            <option key={option} value={option}>
              {option}
            </option>
          ))}
        </Select>
      );
    case 'textarea':
      return <TextArea {...common} value={text} onChange={onChange} />;
    default:
      return (
        <Field
          {...common}
          type={q.kind === 'email' ? 'email' : q.kind === 'phone' ? 'tel' : 'text'}
          autoComplete="off"
          value={text}
          onChange={onChange}
        />
      );
  }
}

interface FieldsetProps {
  type: ResourceType | undefined;
  draft: CustomerDraft;
  errors: Record<string, string>;
  onChange: (update: (draft: CustomerDraft) => CustomerDraft) => void;
}

const setText =
  (onChange: FieldsetProps['onChange'], key: 'name' | 'email' | 'phone' | 'notes') => (value: string) =>
    onChange((d) => ({ ...d, [key]: value }));

export function CustomerFieldset(props: FieldsetProps) {
  const { type, draft, errors, onChange } = props;
  return (
    <fieldset>
      <legend>Customer</legend>
      <ContactFields {...props} />
      {infoFields(type).map((key) => (
        <Field
          key={key}
          name={`customer.${key}`}
          label={fieldLabel(key)}
          autoComplete="off"
          value={draft.info[key] ?? ''}
          error={errors[`customer.${key}`]}
          onChange={(value) => onChange((d) => ({ ...d, info: { ...d.info, [key]: value } }))}
        />
      ))}
      <QuestionFields {...props} />
      <TextArea
        name="notes"
        label="Notes (optional)"
        value={draft.notes}
        error={errors.notes}
        onChange={setText(onChange, 'notes')}
      />
    </fieldset>
  );
}

/** Name, email and the optional phone. */
function ContactFields(props: FieldsetProps) {
  const { draft, errors, onChange } = props;
  return (
    <>
      <Field
        name="customer.name"
        label="Name"
        value={draft.name}
        error={errors['customer.name']}
        onChange={setText(onChange, 'name')}
      />
      <div className="grid-2">
        <Field
          name="customer.email"
          label="Email"
          type="email"
          autoComplete="off"
          value={draft.email}
          error={errors['customer.email']}
          onChange={setText(onChange, 'email')}
        />
        <Field
          name="customer.phone"
          label="Phone (optional)"
          type="tel"
          required={false}
          value={draft.phone}
          error={errors['customer.phone']}
          onChange={setText(onChange, 'phone')}
        />
      </div>
    </>
  );
}

/** The type's booking questions, when it asks any. */
function QuestionFields(props: FieldsetProps) {
  const { type, draft, errors, onChange } = props;
  const questions = type?.questions ?? [];
  if (questions.length === 0) return null;
  return (
    <fieldset className="booking-answers">
      <legend>{type?.name}'s questions</legend>
      {questions.map((q) => (
        <QuestionField
          key={q.id}
          question={q}
          value={draft.answers[q.id]}
          error={errors[`customer.answers.${q.id}`]}
          onChange={(value) => onChange((d) => ({ ...d, answers: { ...d.answers, [q.id]: value } }))}
        />
      ))}
    </fieldset>
  );
}

const BUILT_IN_WORDS: Record<string, string> = { name: 'Customer', email: 'Email', phone: 'Phone' };

/** An answer as words: a checkbox's Yes or No, text as given. */
const answerText = (value: string | boolean) => (value === true ? 'Yes' : value === false ? 'No' : value);

/**
 * The detail's rows of the customer (inside a <dl>): name, email, phone, the type's own fields,
 * then the answers under their question's label in the type's order; an answer to a question
 * the type no longer asks stays, under its id. No answers while the `questions` are not known.
 */
export function CustomerRows(props: {
  customer: Reservation['customer'];
  questions: readonly Question[] | null;
}) {
  const { answers, ...fields } = props.customer;
  const given: Answers = props.questions ? (answers ?? {}) : {};
  const questions = props.questions ?? [];
  const asked = questions.filter((q) => Object.hasOwn(given, q.id));
  const removed = Object.keys(given).filter((id) => !questions.some((q) => q.id === id));
  const rows: { key: string; term: string; value: string; long?: boolean }[] = [
    ...Object.entries(fields).flatMap(([key, value]) =>
      typeof value === 'string' ? [{ key, term: BUILT_IN_WORDS[key] ?? fieldLabel(key), value }] : [],
    ),
    ...asked.map((q) => ({
      key: `answer-${q.id}`,
      term: q.label,
      value: answerText(given[q.id]!),
      long: q.kind === 'textarea',
    })),
    ...removed.map((id) => ({ key: `answer-${id}`, term: id, value: answerText(given[id]!) })),
  ];
  return (
    <>
      {rows.map((row) => (
        <Fragment key={row.key}>
          <dt>{row.term}</dt>
          <dd className={row.long ? 'long-answer' : undefined}>{row.value}</dd>
        </Fragment>
      ))}
    </>
  );
}
