// The schedule form's parts: weekly opening hours, weekly shifts, and dates with other hours.
// Each input is named after the draft's field (`hours.1.closeTime`, `override.<row>.date`), the
// name the API's refusals are mapped to (schedule-draft.ts), so a message lands on its input.
import { Check, Field } from '../ui.js';
import { WEEK } from '../week.js';
import {
  type Draft,
  type Hours,
  newKey,
  newOverride,
  type OverrideRow,
  type Slot,
} from './schedule-draft.js';

type SetDraft = (change: (draft: Draft) => Draft) => void;

/** One time input: its name (where a refusal lands), its words, its value. */
interface TimeInput {
  name: string;
  label: string;
  value: string;
  onChange: (value: string) => void;
}

/** Two times side by side: opens and closes, or starts and ends. */
function TimePair(props: { from: TimeInput; to: TimeInput; errors: Record<string, string> }) {
  const { from, to, errors } = props;
  return (
    <div className="grid-2">
      <Field {...from} autoComplete="off" error={errors[from.name]} />
      <Field {...to} autoComplete="off" error={errors[to.name]} />
    </div>
  );
}

export function HoursFieldset(props: {
  draft: Draft;
  setDraft: SetDraft;
  errors: Record<string, string>;
  /** The check's words: what not setting hours here means at this level. */
  setLabel: string;
}) {
  const { draft, setDraft, errors } = props;
  const setHours = (day: number, change: Partial<Hours>) =>
    setDraft((d) => ({ ...d, hours: { ...d.hours, [day]: { ...d.hours[day]!, ...change } } }));
  return (
    <fieldset>
      <legend>Opening hours</legend>
      <Check
        name="hoursSet"
        label={props.setLabel}
        checked={draft.hoursSet}
        onChange={(hoursSet) => setDraft((d) => ({ ...d, hoursSet }))}
      />
      {draft.hoursSet ? (
        <ul className="schedule-days">
          {WEEK.map(({ dayOfWeek, name }) => (
            <DayHours
              key={dayOfWeek}
              dayOfWeek={dayOfWeek}
              name={name}
              day={draft.hours[dayOfWeek]!}
              errors={errors}
              onChange={(change) => setHours(dayOfWeek, change)}
            />
          ))}
        </ul>
      ) : null}
    </fieldset>
  );
}

/** A weekday's hours: open or closed, and when it opens and closes. */
function DayHours(props: {
  dayOfWeek: number;
  name: string;
  day: Hours;
  errors: Record<string, string>;
  onChange: (change: Partial<Hours>) => void;
}) {
  const { dayOfWeek, name, day, onChange } = props;
  const at = `hours.${dayOfWeek}`;
  return (
    <li>
      <Check
        name={`${at}.open`}
        label={`Open on ${name}`}
        checked={day.open}
        onChange={(open) => onChange({ open })}
      />
      {day.open ? (
        <TimePair
          from={{
            name: `${at}.openTime`,
            label: `${name} opens`,
            value: day.openTime,
            onChange: (openTime) => onChange({ openTime }),
          }}
          to={{
            name: `${at}.closeTime`,
            label: `${name} closes`,
            value: day.closeTime,
            onChange: (closeTime) => onChange({ closeTime }),
          }}
          errors={props.errors}
        />
      ) : (
        <p className="hint">Closed</p>
      )}
    </li>
  );
}

export function ShiftsFieldset(props: { draft: Draft; setDraft: SetDraft; errors: Record<string, string> }) {
  const { draft, setDraft, errors } = props;
  const setSlots = (day: number, slots: Slot[]) =>
    setDraft((d) => ({ ...d, shifts: { ...d.shifts, [day]: slots } }));
  return (
    <fieldset>
      <legend>Shifts</legend>
      <ul className="schedule-days">
        {WEEK.map(({ dayOfWeek, name }) => (
          <DayShifts
            key={dayOfWeek}
            dayOfWeek={dayOfWeek}
            name={name}
            slots={draft.shifts[dayOfWeek]!}
            errors={errors}
            onChange={(slots) => setSlots(dayOfWeek, slots)}
          />
        ))}
      </ul>
    </fieldset>
  );
}

/** A weekday's shifts, each removable, and a new one after the last. */
function DayShifts(props: {
  dayOfWeek: number;
  name: string;
  slots: Slot[];
  errors: Record<string, string>;
  onChange: (slots: Slot[]) => void;
}) {
  const { dayOfWeek, name, slots, onChange } = props;
  const change = (j: number, part: Partial<Slot>) =>
    onChange(slots.map((s, k) => (k === j ? { ...s, ...part } : s)));
  const add = () => {
    const last = slots.at(-1);
    onChange([
      ...slots,
      { key: newKey(), startTime: last ? last.endTime : '09:00', endTime: last ? '' : '12:00' },
    ]);
  };
  return (
    <li>
      <h4>{name}</h4>
      {slots.length === 0 ? <p className="hint">No shifts</p> : null}
      {slots.map((slot, j) => (
        <div className="shift" key={slot.key}>
          <TimePair
            from={{
              name: `shift.${dayOfWeek}.${j}.startTime`,
              label: `${name} shift ${j + 1} starts`,
              value: slot.startTime,
              onChange: (startTime) => change(j, { startTime }),
            }}
            to={{
              name: `shift.${dayOfWeek}.${j}.endTime`,
              label: `${name} shift ${j + 1} ends`,
              value: slot.endTime,
              onChange: (endTime) => change(j, { endTime }),
            }}
            errors={props.errors}
          />
          <button type="button" className="link" onClick={() => onChange(slots.filter((_, k) => k !== j))}>
            Remove {name} shift {j + 1}
          </button>
        </div>
      ))}
      <button type="button" className="secondary" onClick={add}>
        Add a shift on {name}
      </button>
    </li>
  );
}

/** Holidays and special days: each row a date, closed all day or open at its own hours. */
export function DatesFieldset(props: {
  draft: Draft;
  setDraft: SetDraft;
  errors: Record<string, string>;
  /** What a date here does at this level, in words. */
  hint: string;
}) {
  const { draft, setDraft, errors } = props;
  const rows = draft.overrides;
  const setRow = (key: number, change: Partial<OverrideRow>) =>
    setDraft((d) => ({ ...d, overrides: d.overrides.map((r) => (r.key === key ? { ...r, ...change } : r)) }));
  const removeRow = (key: number) =>
    setDraft((d) => ({ ...d, overrides: d.overrides.filter((r) => r.key !== key) }));
  return (
    <fieldset>
      <legend>Dates with other hours (holidays, special days)</legend>
      <p className="hint">{props.hint}</p>
      {errors.overrides ? (
        <p className="field-error" id="e-overrides">
          {errors.overrides}
        </p>
      ) : null}
      {rows.length === 0 ? <p className="hint">No dates yet.</p> : null}
      <ul className="schedule-days">
        {rows.map((row, i) => (
          <DateRow
            key={row.key}
            row={row}
            n={i + 1}
            errors={errors}
            onChange={(change) => setRow(row.key, change)}
            onRemove={() => removeRow(row.key)}
          />
        ))}
      </ul>
      <button
        type="button"
        className="secondary"
        onClick={() => setDraft((d) => ({ ...d, overrides: [...d.overrides, newOverride()] }))}
      >
        Add a date
      </button>
    </fieldset>
  );
}

/** A date with other hours: closed all day, or when it opens and closes. */
function DateRow(props: {
  row: OverrideRow;
  /** Its place in the list, from 1. */
  n: number;
  errors: Record<string, string>;
  onChange: (change: Partial<OverrideRow>) => void;
  onRemove: () => void;
}) {
  const { row, n, errors, onChange } = props;
  const at = `override.${row.key}`;
  return (
    <li>
      <Field
        name={`${at}.date`}
        label={`Date ${n}`}
        type="date"
        value={row.date}
        error={errors[`${at}.date`]}
        onChange={(date) => onChange({ date })}
      />
      <Check
        name={`${at}.closed`}
        label={`Closed all day (date ${n})`}
        checked={row.closed}
        error={errors[`${at}.closed`]}
        onChange={(closed) => onChange({ closed })}
      />
      {row.closed ? null : (
        <TimePair
          from={{
            name: `${at}.openTime`,
            label: `Date ${n} opens`,
            value: row.openTime,
            onChange: (openTime) => onChange({ openTime }),
          }}
          to={{
            name: `${at}.closeTime`,
            label: `Date ${n} closes`,
            value: row.closeTime,
            onChange: (closeTime) => onChange({ closeTime }),
          }}
          errors={errors}
        />
      )}
      <button type="button" className="link" onClick={props.onRemove}>
        Remove date {n}
      </button>
    </li>
  );
}
