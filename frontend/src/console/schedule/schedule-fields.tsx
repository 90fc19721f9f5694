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
          {WEEK.map(({ dayOfWeek, name }) => {
            const day = draft.hours[dayOfWeek]!;
            return (
              <li key={dayOfWeek}>
                <Check
                  name={`hours.${dayOfWeek}.open`}
                  label={`Open on ${name}`}
                  checked={day.open}
                  onChange={(open) => setHours(dayOfWeek, { open })}
                />
                {day.open ? (
                  <div className="grid-2">
                    <Field
                      name={`hours.${dayOfWeek}.openTime`}
                      label={`${name} opens`}
                      autoComplete="off"
                      value={day.openTime}
                      error={errors[`hours.${dayOfWeek}.openTime`]}
                      onChange={(openTime) => setHours(dayOfWeek, { openTime })}
                    />
                    <Field
                      name={`hours.${dayOfWeek}.closeTime`}
                      label={`${name} closes`}
                      autoComplete="off"
                      value={day.closeTime}
                      error={errors[`hours.${dayOfWeek}.closeTime`]}
                      onChange={(closeTime) => setHours(dayOfWeek, { closeTime })}
                    />
                  </div>
                ) : (
                  <p className="hint">Closed</p>
                )}
              </li>
            );
          })}
        </ul>
      ) : null}
    </fieldset>
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
        {WEEK.map(({ dayOfWeek, name }) => {
          const slots = draft.shifts[dayOfWeek]!;
          const change = (j: number, part: Partial<Slot>) =>
            setSlots(
              dayOfWeek,
              slots.map((s, k) => (k === j ? { ...s, ...part } : s)),
            );
          return (
            <li key={dayOfWeek}>
              <h4>{name}</h4>
              {slots.length === 0 ? <p className="hint">No shifts</p> : null}
              {slots.map((slot, j) => (
                <div className="shift" key={slot.key}>
                  <div className="grid-2">
                    <Field
                      name={`shift.${dayOfWeek}.${j}.startTime`}
                      label={`${name} shift ${j + 1} starts`}
                      autoComplete="off"
                      value={slot.startTime}
                      error={errors[`shift.${dayOfWeek}.${j}.startTime`]}
                      onChange={(startTime) => change(j, { startTime })}
                    />
                    <Field
                      name={`shift.${dayOfWeek}.${j}.endTime`}
                      label={`${name} shift ${j + 1} ends`}
                      autoComplete="off"
                      value={slot.endTime}
                      error={errors[`shift.${dayOfWeek}.${j}.endTime`]}
                      onChange={(endTime) => change(j, { endTime })}
                    />
                  </div>
                  <button
                    type="button"
                    className="link"
                    onClick={() =>
                      setSlots(
                        dayOfWeek,
                        slots.filter((_, k) => k !== j),
                      )
                    }
                  >
                    Remove {name} shift {j + 1}
                  </button>
                </div>
              ))}
              <button
                type="button"
                className="secondary"
                onClick={() => {
                  const last = slots.at(-1);
                  setSlots(dayOfWeek, [
                    ...slots,
                    {
                      key: newKey(),
                      startTime: last ? last.endTime : '09:00',
                      endTime: last ? '' : '12:00',
                    },
                  ]);
                }}
              >
                Add a shift on {name}
              </button>
            </li>
          );
        })}
      </ul>
    </fieldset>
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
        {rows.map((row, i) => {
          const n = i + 1;
          const at = `override.${row.key}`;
          return (
            <li key={row.key}>
              <Field
                name={`${at}.date`}
                label={`Date ${n}`}
                type="date"
                value={row.date}
                error={errors[`${at}.date`]}
                onChange={(date) => setRow(row.key, { date })}
              />
              <Check
                name={`${at}.closed`}
                label={`Closed all day (date ${n})`}
                checked={row.closed}
                error={errors[`${at}.closed`]}
                onChange={(closed) => setRow(row.key, { closed })}
              />
              {row.closed ? null : (
                <div className="grid-2">
                  <Field
                    name={`${at}.openTime`}
                    label={`Date ${n} opens`}
                    autoComplete="off"
                    value={row.openTime}
                    error={errors[`${at}.openTime`]}
                    onChange={(openTime) => setRow(row.key, { openTime })}
                  />
                  <Field
                    name={`${at}.closeTime`}
                    label={`Date ${n} closes`}
                    autoComplete="off"
                    value={row.closeTime}
                    error={errors[`${at}.closeTime`]}
                    onChange={(closeTime) => setRow(row.key, { closeTime })}
                  />
                </div>
              )}
              <button
                type="button"
                className="link"
                onClick={() =>
                  setDraft((d) => ({ ...d, overrides: d.overrides.filter((r) => r.key !== row.key) }))
                }
              >
                Remove date {n}
              </button>
            </li>
          );
        })}
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
