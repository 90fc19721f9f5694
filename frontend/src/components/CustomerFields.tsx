// The details form's inputs: name, email, the optional phone, the type's own fields, its
// booking questions and the notes. Each takes at most what the API accepts (maxLength), is
// `required` exactly where the API requires it (the others say "(optional)"), and shows the
// API's refusal of it beside it, in words.
import type { TFunction } from 'i18next';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { type FieldDetail, fieldOf } from '../api/errors.js';
import type { PublicType } from '../api/types.js';
import { useCustomerErrors } from '../i18n/customer-errors.js';
import { type Answers, answerLimit, fieldLimit, LIMITS, type Question, type Values } from '../lib/booking.js';
import { fieldLabel } from '../lib/manage-links.js';

interface TextField {
  key: string;
  label: string;
  type: string;
  required: boolean;
  autoComplete?: string;
}

/**
 * The customer fields a type asks for: name and email required, phone always optional, its own
 * fields required (named by their key: the organisation chose it, in its own language).
 */
export function customerFields(type: PublicType, t?: TFunction): TextField[] {
  const say = (key: string, english: string) => (t ? t(key) : english);
  return [
    {
      key: 'name',
      label: say('fields.name', 'Your name'),
      type: 'text',
      required: true,
      autoComplete: 'name',
    },
    {
      key: 'email',
      label: say('fields.email', 'Email'),
      type: 'email',
      required: true,
      autoComplete: 'email',
    },
    { key: 'phone', label: say('fields.phone', 'Phone'), type: 'tel', required: false, autoComplete: 'tel' },
    ...type.customerInfoFields
      .filter((k) => !['name', 'email', 'phone'].includes(k))
      .map((key) => ({ key, label: fieldLabel(key), type: 'text', required: true })),
  ];
}

/** The form field names these inputs show refusals for (`customer.email`, `customer.answers.<id>`, `notes`). */
export function shownFields(type: PublicType): string[] {
  return [
    ...customerFields(type).map((f) => `customer.${f.key}`),
    ...(type.questions ?? []).map((q) => `customer.answers.${q.id}`),
    'customer.answers',
    'notes',
  ];
}

/** One labelled control with its refusal beside it (`aria-describedby`). */
function Field(props: {
  id: string;
  label: string;
  required: boolean;
  error: string | undefined;
  check?: boolean;
  children: (aria: { 'aria-invalid'?: true; 'aria-describedby'?: string }) => ReactNode;
}) {
  const { id, label, required, error, check } = props;
  const { t } = useTranslation();
  const aria = error ? { 'aria-invalid': true as const, 'aria-describedby': `e-${id}` } : {};
  const labelled = <label htmlFor={id}>{required ? label : t('fields.optional', { label })}</label>;
  return (
    <div className={check ? 'field field-check' : 'field'}>
      {check ? (
        <span>
          {props.children(aria)} {labelled}
        </span>
      ) : (
        <>
          {labelled}
          {props.children(aria)}
        </>
      )}
      {error ? (
        <p className="field-error" id={`e-${id}`}>
          {error}
        </p>
      ) : null}
    </div>
  );
}

function QuestionInput(props: {
  question: Question;
  value: string | boolean | undefined;
  error: string | undefined;
  onChange: (value: string | boolean) => void;
}) {
  const { question: q, value, error, onChange } = props;
  const id = `q-${q.id}`;
  const text = typeof value === 'string' ? value : '';
  const common = { id, name: id, required: q.required };
  const { t } = useTranslation();
  return (
    <Field id={id} label={q.label} required={q.required} error={error} check={q.kind === 'checkbox'}>
      {(aria) =>
        q.kind === 'checkbox' ? (
          <input
            {...common}
            {...aria}
            type="checkbox"
            checked={value === true}
            onChange={(e) => onChange(e.target.checked)}
          />
        ) : q.kind === 'select' ? (
          <select {...common} {...aria} value={text} onChange={(e) => onChange(e.target.value)}>
            <option value="">{t('fields.choose')}</option>
            {(q.options ?? []).map((option) => (
              <option key={option} value={option}>
                {option}
              </option>
            ))}
          </select>
        ) : q.kind === 'textarea' ? (
          <textarea
            {...common}
            {...aria}
            rows={3}
            maxLength={answerLimit(q.kind)}
            value={text}
            onChange={(e) => onChange(e.target.value)}
          />
        ) : (
          <input
            {...common}
            {...aria}
            type={q.kind === 'email' ? 'email' : q.kind === 'phone' ? 'tel' : 'text'}
            maxLength={answerLimit(q.kind)}
            value={text}
            onChange={(e) => onChange(e.target.value)}
          />
        )
      }
    </Field>
  );
}

/** One of the customer's text fields (name, email, phone, the type's own). */
function TextFieldInput(props: {
  field: TextField;
  value: string;
  error: string | undefined;
  onChange: (value: string) => void;
}) {
  const { field: f, value, error, onChange } = props;
  return (
    <Field id={`f-${f.key}`} label={f.label} required={f.required} error={error}>
      {(aria) => (
        <input
          {...aria}
          id={`f-${f.key}`}
          name={f.key}
          type={f.type}
          required={f.required}
          maxLength={fieldLimit(f.key)}
          autoComplete={f.autoComplete}
          value={value}
          onChange={(e) => onChange(e.target.value)}
        />
      )}
    </Field>
  );
}

export function CustomerFields(props: {
  type: PublicType;
  values: Values;
  onValues: (update: (values: Values) => Values) => void;
  answers: Answers;
  onAnswers: (update: (answers: Answers) => Answers) => void;
  /** The refusal's details: each field's words depend on what it holds (and a question's kind). */
  details: readonly FieldDetail[];
}) {
  const { type, values, onValues, answers, onAnswers, details } = props;
  const { t } = useTranslation();
  const { wordsAt, answerWords } = useCustomerErrors();
  const given = (key: string) => (values[key] ?? '').trim() !== '';
  const errorOf = (key: string) => wordsAt(details, key === 'notes' ? key : `customer.${key}`, given(key));
  const answerError = (q: Question) => {
    const detail = details.find((d) => fieldOf(d.path) === `customer.answers.${q.id}`);
    const value = answers[q.id];
    return detail ? answerWords(detail, q.kind, typeof value === 'string' && value.trim() !== '') : undefined;
  };
  return (
    <>
      {customerFields(type, t).map((f) => (
        <TextFieldInput
          key={f.key}
          field={f}
          value={values[f.key] ?? ''}
          error={errorOf(f.key)}
          onChange={(value) => onValues((v) => ({ ...v, [f.key]: value }))}
        />
      ))}
      {(type.questions ?? []).map((q) => (
        <QuestionInput
          key={q.id}
          question={q}
          value={answers[q.id]}
          error={answerError(q)}
          onChange={(value) => onAnswers((a) => ({ ...a, [q.id]: value }))}
        />
      ))}
      <Field id="f-notes" label={t('fields.notes')} required={false} error={errorOf('notes')}>
        {(aria) => (
          <textarea
            {...aria}
            id="f-notes"
            name="notes"
            rows={3}
            maxLength={LIMITS.notes}
            value={values.notes ?? ''}
            onChange={(e) => onValues((v) => ({ ...v, notes: e.target.value }))}
          />
        )}
      </Field>
    </>
  );
}
