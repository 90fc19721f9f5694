// The resources of a collective booking: two to five, ticked; the API's refusal of them
// (resourceIds) under the list.
import { Check } from '../ui.js';
import type { SlotChoice } from './use-new-booking.js';
import { MAX_TOGETHER, MIN_TOGETHER } from './use-together.js';

export function TogetherFields(props: {
  group: NonNullable<SlotChoice['together']>;
  error: string | undefined;
}) {
  const { group, error } = props;
  const chosen = new Set(group.ids);
  const full = chosen.size >= MAX_TOGETHER;
  const toggle = (id: number, on: boolean) =>
    group.choose(on ? [...group.ids, id] : group.ids.filter((other) => other !== id));
  return (
    <fieldset aria-describedby={error ? 'e-resourceIds' : 'h-resourceIds'}>
      <legend>
        Resources booked together ({MIN_TOGETHER} to {MAX_TOGETHER})
      </legend>
      <p className="hint" id="h-resourceIds">
        One reservation takes every ticked resource for the same time; the times below are those all of them
        are free.
      </p>
      {group.candidates.map((r) => (
        <Check
          key={r.id}
          name={`together-${r.id}`}
          label={r.name}
          checked={chosen.has(r.id)}
          disabled={full && !chosen.has(r.id)}
          onChange={(on) => toggle(r.id, on)}
        />
      ))}
      {error ? (
        <p className="field-error" id="e-resourceIds">
          {error}
        </p>
      ) : null}
    </fieldset>
  );
}
