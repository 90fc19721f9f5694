// The resources of a collective booking: two to five, ticked; the API's refusal of them
// (resourceIds) under the list.
import { LimitedChecks } from '../ui.js';
import type { SlotChoice } from './use-new-booking.js';
import { MAX_TOGETHER, MIN_TOGETHER } from './use-together.js';

export function TogetherFields(props: {
  group: NonNullable<SlotChoice['together']>;
  error: string | undefined;
}) {
  const { group, error } = props;
  return (
    <fieldset aria-describedby={error ? 'e-resourceIds' : 'h-resourceIds'}>
      <legend>
        Resources booked together ({MIN_TOGETHER} to {MAX_TOGETHER})
      </legend>
      <p className="hint" id="h-resourceIds">
        One reservation takes every ticked resource for the same time; the times below are those all of them
        are free.
      </p>
      <LimitedChecks
        prefix="together"
        options={group.candidates}
        chosen={group.ids}
        max={MAX_TOGETHER}
        onChange={group.choose}
      />
      {error ? (
        <p className="field-error" id="e-resourceIds">
          {error}
        </p>
      ) : null}
    </fieldset>
  );
}
